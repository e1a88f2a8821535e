// A function of 12 lines, a class with a method of 4, a lambda inside a
// function (counted with it) and braces in strings and comments.
namespace sample {
struct S {
  int get() const {
    return 1; // }
  }
};
int longer(int x) {
  const char *text = "{ not a brace";
  auto f = [&](int y) {
    return y + 1;
  };
  /* } */
  int z = f(x);
  z += 1;
  z += 2;
  return z;
}
} // namespace sample
