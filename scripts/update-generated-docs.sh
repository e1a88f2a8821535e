#!/usr/bin/env bash
# Regenerates the reference docs under docs/generated/ from the ODS and
# pass definitions with mlir-tblgen:
#   docs/generated/FuseOps.md               <- include/fuse/Dialect/Fuse/IR/FuseOps.td
#   docs/generated/Fuse<Dir>Passes.md       <- every include/fuse/**/<Dir>/Passes.td
#
# Usage: scripts/update-generated-docs.sh [--check] [--tblgen PATH] [--out DIR]
#   --check   generate into a temporary directory and compare with
#             docs/generated/ (or DIR); exit 1 with a message if they differ.
#   --tblgen  the mlir-tblgen to use (default: $MLIR_TBLGEN, then
#             mlir-tblgen on PATH, then `llvm-config-22 --bindir`).
#   --out     where to write (default: docs/generated/ in the source tree).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
check=0
out="$root/docs/generated"
tblgen="${MLIR_TBLGEN:-}"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --check) check=1; shift ;;
    --tblgen) tblgen="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    *) echo "update-generated-docs.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
if [[ -z "$tblgen" ]]; then
  tblgen="$(command -v mlir-tblgen || true)"
fi
if [[ -z "$tblgen" ]] && command -v llvm-config-22 >/dev/null; then
  tblgen="$(llvm-config-22 --bindir)/mlir-tblgen"
fi
if [[ -z "$tblgen" || ! -x "$tblgen" ]]; then
  echo "update-generated-docs.sh: mlir-tblgen not found (use --tblgen PATH)" >&2
  exit 2
fi
# MLIR's .td files live in the include directory next to the tool's bin/.
mlir_inc="$(cd "$(dirname "$tblgen")/../include" && pwd)"

gen_dir="$(mktemp -d)"
trap 'rm -rf "$gen_dir"' EXIT
inc=(-I "$root/include" -I "$mlir_inc")

"$tblgen" -gen-dialect-doc -dialect=fuse "${inc[@]}" \
  "$root/include/fuse/Dialect/Fuse/IR/FuseOps.td" -o "$gen_dir/FuseOps.md"

# Every Passes.td, named after its directory: Conversion/Passes.td ->
# FuseConversionPasses.md, Dialect/Fuse/Transforms/Passes.td ->
# FuseTransformsPasses.md.
while IFS= read -r td; do
  dir="$(basename "$(dirname "$td")")"
  name="${dir#Fuse}"
  "$tblgen" -gen-pass-doc "${inc[@]}" "$td" -o "$gen_dir/Fuse${name}Passes.md"
done < <(find "$root/include/fuse" -name Passes.td | LC_ALL=C sort)

if [[ $check -eq 1 ]]; then
  if ! diff -ru "$out" "$gen_dir"; then
    echo "error: docs/generated/ is out of date with the .td files;" \
         "refresh it with scripts/update-generated-docs.sh and commit it" >&2
    exit 1
  fi
  exit 0
fi
mkdir -p "$out"
rm -f "$out"/*.md
cp "$gen_dir"/*.md "$out"/
echo "wrote $(ls "$gen_dir" | wc -l) files to $out"
