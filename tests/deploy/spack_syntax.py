"""packaging/spack/package.py is valid Python 3 and declares a CMakePackage named Hpcsens with
the build options the CMake project has. Spack itself is not installed here: untested there."""
import ast
import sys

src = open(sys.argv[1], encoding="utf-8").read()
tree = ast.parse(src, sys.argv[1])
compile(tree, sys.argv[1], "exec")
classes = [n for n in tree.body if isinstance(n, ast.ClassDef)]
assert [c.name for c in classes] == ["Hpcsens"], [c.name for c in classes]
assert [b.id for b in classes[0].bases] == ["CMakePackage"]
methods = {n.name for n in classes[0].body if isinstance(n, ast.FunctionDef)}
assert {"cmake_args", "setup_run_environment"} <= methods, methods
cmake = open(sys.argv[2], encoding="utf-8").read()
for option in ("HPCSENS_BUILD_TESTS", "HPCSENS_BUILD_BENCH"):
    assert option in src and option in cmake, option
print("package.py: OK")
