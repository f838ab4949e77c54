# Sourced by generate.sh and shots.sh with ROOT and WORK set: builds tammi and the
# generator at nice 19 into $CARGO_TARGET_DIR (default WORK/target) and sets T and G.
TGT=${CARGO_TARGET_DIR:-$WORK/target}
mkdir -p "$WORK"
(cd "$ROOT" && CARGO_TARGET_DIR=$TGT nice -n 19 cargo build --release)
(cd "$ROOT/.ci/tactics/gen" && CARGO_TARGET_DIR=$TGT/gen nice -n 19 cargo build --release)
T=$TGT/release/tammi
G=$TGT/gen/release/tactics-gen
