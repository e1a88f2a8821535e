# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "FUSE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".py", ".test"]
config.excludes = ["CMakeLists.txt", "README.txt", "lit.cfg.py",
                   "lit.site.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.fuse_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%shlibext", config.llvm_shlib_ext))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%fuse_src_root", config.fuse_src_root))
config.substitutions.append(("%fuse_obj_root", config.fuse_obj_root))
config.substitutions.append(("%llvm_tools_dir", config.llvm_tools_dir))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP",
                                     "PYTHONPATH", "XDG_CACHE_HOME"])
llvm_config.use_default_substitutions()

# Captured names must not leak between CHECK-LABEL blocks.
config.environment["FILECHECK_OPTS"] = "-enable-var-scope"

llvm_config.with_environment("PATH", config.fuse_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PYTHONPATH",
                             os.path.join(config.fuse_src_root, "python"),
                             append_path=True)

tool_dirs = [config.fuse_tools_dir, config.llvm_tools_dir]
tools = ["fuse-opt", "fuse-run", "fuse-compile", "mlir-translate", "mlir-opt"]
# fuse-run-aot is built with the runtime (runtime/), where a CUDA toolkit is
# found; fuse-run's --gpu mode is compiled in under the same condition.
if os.path.exists(os.path.join(config.fuse_tools_dir, "fuse-run-aot")):
    tools.append("fuse-run-aot")
    config.available_features.add("fuse-run-aot")
llvm_config.add_tool_substitutions(tools, tool_dirs)

if config.have_cuda_toolkit:
    config.available_features.add("cuda-toolkit")
    llvm_config.with_environment("PATH", config.cuda_bin_dir, append_path=True)
    # gpu-module-to-binary finds libdevice (math.exp -> __nv_expf) through
    # CUDA_HOME; lit does not pass the caller's environment through.
    llvm_config.with_environment("CUDA_HOME",
                                 os.path.dirname(config.cuda_bin_dir.rstrip("/")))

# The CUDA runtime's no-GPU test binary, built from test/Runtime/nogpu_test.cpp
# by runtime/CMakeLists.txt into <build>/runtime/tests (runtime/ is built
# inside the main build when a CUDA toolkit is found).
fuse_runtime_nogpu_test = os.path.join(config.fuse_obj_root, "runtime",
                                       "tests", "fuse_runtime_nogpu_test")
config.substitutions.append(("%fuse_runtime_nogpu_test",
                             fuse_runtime_nogpu_test))
if os.path.exists(fuse_runtime_nogpu_test):
    config.available_features.add("fuse-runtime")

try:
    import numpy  # noqa: F401
    config.available_features.add("numpy")
except ImportError:
    pass

# The install/find_package(Fuse) test configures and builds an outside
# project (needs cmake and ninja; FUSE_SKIP_INSTALL_TEST=1 turns it off).
import shutil
if (shutil.which("cmake") and shutil.which("ninja")
        and os.environ.get("FUSE_SKIP_INSTALL_TEST") != "1"):
    config.available_features.add("install-test")
