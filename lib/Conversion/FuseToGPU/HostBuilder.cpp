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
  if (!value) {
    Block *init = mb.createBlock(&g.getInitializerRegion());
    mb.setInsertionPointToStart(init);
    Value z = LLVM::ZeroOp::create(mb, loc, t);
    LLVM::ReturnOp::create(mb, loc, z);
  }
  return g;
}

Value HostBuilder::allocTemp(Value bytes) {
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
  check(call("fuse_launch", {fnHandle, g32, one, one, block, one, one,
                             sharedBytes, stream, array}));
}

LogicalResult ShapeInfer::dims(Value v, SmallVector<Value> &out,
                               SmallVector<SizeAttr> &text) {
  auto t = tensorTy(v);
  out.clear();
  text.clear();
  SmallVector<Value> in;
  SmallVector<SizeAttr> inText;
  auto fromInput = [&](Value x) -> LogicalResult {
    return dims(x, in, inText);
  };
  // Dimension i made by a broadcast or iota: a static one comes from the
  // type below, a dynamic one is the next of `sizes` (a host scalar).
  auto newDim = [&](int64_t i, ValueRange sizes,
                    unsigned &next) -> LogicalResult {
    if (!t.isDynamicDim(i)) {
      in.push_back(nullptr);
      inText.push_back(SizeAttr());
      return success();
    }
    auto it = scalars.find(sizes[next++]);
    if (it == scalars.end())
      return failure();
    in.push_back(it->second.first);
    inText.push_back(it->second.second);
    return success();
  };
  Operation *def = v.getDefiningOp();
  if (auto it = args.find(v); it != args.end()) {
    in = it->second.dims;
    inText = it->second.dimSizes;
  } else if (auto m = dyn_cast_or_null<MapOp>(def)) {
    if (m.getInputs().empty() || failed(fromInput(m.getInputs()[0])))
      return failure();
  } else if (auto s = dyn_cast_or_null<ScanOp>(def)) {
    if (failed(fromInput(s.getInputs()[0])))
      return failure();
  } else if (auto f = dyn_cast_or_null<FilterOp>(def)) {
    if (failed(fromInput(f.getInputs()[0])))
      return failure();
  } else if (auto g = dyn_cast_or_null<GatherOp>(def)) {
    if (failed(fromInput(g.getIndices())))
      return failure();
  } else if (auto r = dyn_cast_or_null<ReduceOp>(def)) {
    SmallVector<Value> d;
    SmallVector<SizeAttr> dt;
    if (failed(dims(r.getInputs()[0], d, dt)))
      return failure();
    SmallVector<int64_t> red = r.getReducedDims();
    for (int64_t i = 0; i < (int64_t)d.size(); ++i)
      if (!llvm::is_contained(red, i)) {
        in.push_back(d[i]);
        inText.push_back(dt[i]);
      }
  } else if (auto bc = dyn_cast_or_null<BroadcastOp>(def)) {
    SmallVector<Value> d;
    SmallVector<SizeAttr> dt;
    if (failed(dims(bc.getInput(), d, dt)))
      return failure();
    unsigned k = 0, s = 0;
    for (int64_t i = 0; i < t.getRank(); ++i) {
      if (llvm::is_contained(bc.getDims(), i)) {
        if (failed(newDim(i, bc.getSizes(), s)))
          return failure();
      } else {
        in.push_back(d[k]);
        inText.push_back(dt[k]);
        ++k;
      }
    }
  } else if (auto io = dyn_cast_or_null<IotaOp>(def)) {
    unsigned s = 0;
    for (int64_t i = 0; i < t.getRank(); ++i)
      if (failed(newDim(i, io.getSizes(), s)))
        return failure();
  } else {
    return failure();
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
