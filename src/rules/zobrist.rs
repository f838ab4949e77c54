//! Zobrist keys: one random 64-bit number per (piece kind, bit index), and one for Black to
//! move. Generated at compile time with splitmix64 so hashes are identical across runs.

/// Piece kinds index the first dimension: white man, white king, black man, black king.
pub static KEYS: [[u64; 128]; 4] = keys();
pub const SIDE: u64 = 0x9e37_79b9_7f4a_7c15 ^ 0xd1b5_4a32_d192_ed03;

const fn splitmix(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (s, z ^ (z >> 31))
}

const fn keys() -> [[u64; 128]; 4] {
    let mut k = [[0u64; 128]; 4];
    let mut state = 0x7a6d_6d69_u64; // "tammi"
    let mut kind = 0;
    while kind < 4 {
        let mut i = 0;
        while i < 128 {
            let (s, v) = splitmix(state);
            state = s;
            k[kind][i] = v;
            i += 1;
        }
        kind += 1;
    }
    k
}
