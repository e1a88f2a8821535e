//===- HostBuilder.cpp - host function builder of convert-fuse-to-gpu ----===//
//
// The out-of-line parts of HostBuilder (runtime calls and status checks,
// stack slots, globals, device temporaries, kernel launches) and
// ShapeInfer, which sizes a group's results on the host from the group
// body's ops.
//
//===----------------------------------------------------------------------===//

#include "HostBuilder.h"
#include "KernelGen.h"

#include "fuse/Dialect/Fuse/IR/FuseOps.h"
#include "fuse/Dialect/Fuse/IR/Shapes.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"

namespace fuse {
namespace gpugen {

func::FuncOp HostBuilder::declare(StringRef name, TypeRange args) {
  if (auto f = module.lookupSymbol<func::FuncOp>(name))
    return f;
  OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
  auto f = func::FuncOp::create(mb, loc, name,
                                mb.getFunctionType(args, {mb.getI32Type()}));
  f.setPrivate();
  return f;
}

Value HostBuilder::call(StringRef name, ValueRange args) {
  SmallVector<Type> types(args.getTypes());
  func::FuncOp f = declare(name, types);
  return func::CallOp::create(b, loc, f, args).getResult(0);
}

void HostBuilder::check(Value status) {
  Block *cur = b.getBlock();
  Block *cont = cur->splitBlock(b.getInsertionPoint());
  b.setInsertionPointToEnd(cur);
  Value ok =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, status, c32(0));
  cf::CondBranchOp::create(b, loc, ok, cont, ValueRange{}, fail,
                           ValueRange{status});
  b.setInsertionPointToStart(cont);
}

void HostBuilder::ifThen(Value cond, function_ref<void()> then) {
  Block *cur = b.getBlock();
  Block *cont = cur->splitBlock(b.getInsertionPoint());
  Block *thenBlock = b.createBlock(cont);
  b.setInsertionPointToEnd(cur);
  cf::CondBranchOp::create(b, loc, cond, thenBlock, cont);
  b.setInsertionPointToStart(thenBlock);
  then();
  cf::BranchOp::create(b, loc, cont);
  b.setInsertionPointToStart(cont);
}

void HostBuilder::forEach(Value lo, Value hi,
                          function_ref<void(Value iv)> body) {
  Block *cur = b.getBlock();
  Block *exit = cur->splitBlock(b.getInsertionPoint());
  Block *header = b.createBlock(exit, {i64()}, {loc});
  Block *loop = b.createBlock(exit);
  b.setInsertionPointToEnd(cur);
  cf::BranchOp::create(b, loc, header, ValueRange{lo});
  b.setInsertionPointToStart(header);
  Value iv = header->getArgument(0);
  Value more = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, iv, hi);
  cf::CondBranchOp::create(b, loc, more, loop, exit);
  b.setInsertionPointToStart(loop);
  body(iv);
  cf::BranchOp::create(b, loc, header, ValueRange{add(iv, c64(1))});
  b.setInsertionPointToStart(exit);
}

Value HostBuilder::slot(Type t) {
  OpBuilder eb = OpBuilder::atBlockBegin(entry);
  return LLVM::AllocaOp::create(
      eb, loc, ptrTy(), t,
      arith::ConstantIntOp::create(eb, loc, eb.getI64Type(), 1));
}

LLVM::GlobalOp HostBuilder::global(StringRef name, Type t, Attribute value,
                                   bool constant, uint64_t align) {
  if (auto g = module.lookupSymbol<LLVM::GlobalOp>(name))
    return g;
  OpBuilder mb = OpBuilder::atBlockBegin(module.getBody());
  auto g = LLVM::GlobalOp::create(mb, loc, t, constant, LLVM::Linkage::Internal,
                                  name, value, align);
  createdGlobals.push_back(g);
  if (!value) {
    Block *init = mb.createBlock(&g.getInitializerRegion());
    mb.setInsertionPointToStart(init);
    Value z = LLVM::ZeroOp::create(mb, loc, t);
    LLVM::ReturnOp::create(mb, loc, z);
  }
  return g;
}

LLVM::GlobalOp HostBuilder::cString(StringRef name, StringRef text) {
  std::string t = text.str();
  t.push_back('\0');
  return global(name, LLVM::LLVMArrayType::get(b.getI8Type(), t.size()),
                b.getStringAttr(t), true, 1);
}

void HostBuilder::rejectIf(Value cond, LLVM::GlobalOp message) {
  ifThen(cond, [&] {
    check(call("fuse_set_error",
               {c32(1 /*FUSE_ERROR_INVALID_ARGUMENT*/), addressOf(message)}));
  });
}

void HostBuilder::beginBody() {
  entry = fn.addEntryBlock();
  fail = new Block();
  fn.getBody().push_back(fail);
  fail->addArgument(i32(), loc);
  b.setInsertionPointToStart(entry);
}

Value HostBuilder::allocTemp(Value bytes) {
  if (workspace) {
    // Aligned as cudaMalloc aligns, for every vector access.
    Value start = arith::AndIOp::create(
        b, loc, add(load(i64(), workspace->used), c64(255)),
        c64(~int64_t(255)));
    store(add(start, bytes), workspace->used);
    return LLVM::GEPOp::create(b, loc, ptrTy(), b.getI8Type(), workspace->base,
                               ArrayRef<LLVM::GEPArg>{start});
  }
  Value s = slot(ptrTy());
  {
    OpBuilder eb(b.getContext());
    eb.setInsertionPointAfter(s.getDefiningOp());
    LLVM::StoreOp::create(eb, loc, LLVM::ZeroOp::create(eb, loc, ptrTy()), s);
  }
  tempSlots.push_back(s);
  check(call("fuse_malloc", {s, bytes, stream}));
  return load(ptrTy(), s);
}

void HostBuilder::onDevice(function_ref<void()> work) {
  if (workspace)
    ifThen(notI(workspace->dry), work);
  else
    work();
}

void HostBuilder::launch(Value fnHandle, Value grid, Value block,
                         ValueRange args, Value sharedBytes) {
  Value array = slot(LLVM::LLVMArrayType::get(ptrTy(), args.size()));
  for (auto [i, a] : llvm::enumerate(args)) {
    Type t = a.getType().isIndex() ? i64() : a.getType();
    Value s = slot(t);
    store(a, s);
    Value elem = LLVM::GEPOp::create(
        b, loc, ptrTy(), LLVM::LLVMArrayType::get(ptrTy(), args.size()), array,
        ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)});
    store(s, elem);
  }
  Value g32 = arith::TruncIOp::create(b, loc, i32(), grid);
  Value one = c32(1);
  onDevice([&] {
    check(call("fuse_launch", {fnHandle, g32, one, one, block, one, one,
                               sharedBytes, stream, array}));
  });
}

LogicalResult ShapeInfer::dims(Value v, SmallVector<Value> &out,
                               SmallVector<SizeAttr> &text) {
  auto t = tensorTy(v);
  out.clear();
  text.clear();
  SmallVector<Value> in(t.getRank());
  SmallVector<SizeAttr> inText(t.getRank());
  if (auto it = args.find(v); it != args.end()) {
    in = it->second.dims;
    inText = it->second.dimSizes;
  } else {
    // The dialect's shape rule (dimOrigin), with the group's host tensors
    // and host scalars as leaves. The tensor a dimension follows is sized
    // once, before any constant of `v` is made.
    Value from;
    SmallVector<Value> fromDims;
    SmallVector<SizeAttr> fromText;
    for (int64_t i = 0; i < t.getRank(); ++i) {
      DimOrigin o = dimOrigin(v, i);
      if (o.kind == DimOrigin::Kind::Dim) {
        if (o.value != from) {
          if (failed(dims(o.value, fromDims, fromText)))
            return failure();
          from = o.value;
        }
        if (o.dim >= int64_t(fromDims.size()))
          return failure();
        in[i] = fromDims[o.dim];
        inText[i] = fromText[o.dim];
      } else if (o.kind == DimOrigin::Kind::Scalar) {
        auto it = scalars.find(o.value);
        if (it == scalars.end())
          return failure();
        in[i] = it->second.first;
        inText[i] = it->second.second;
      } else if (o.kind == DimOrigin::Kind::None) {
        return failure();
      }
    }
  }
  if ((int64_t)in.size() != t.getRank())
    return failure();
  for (int64_t i = 0; i < t.getRank(); ++i) {
    if (!t.isDynamicDim(i)) {
      out.push_back(h.c64(t.getDimSize(i)));
      text.push_back(SizeAttr::get(v.getContext(), SizeSource::Static,
                                   t.getDimSize(i), 0));
    } else {
      out.push_back(in[i]);
      text.push_back(inText[i]);
    }
  }
  return success();
}

} // namespace gpugen
} // namespace fuse
