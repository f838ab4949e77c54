//! Large tables on huge pages: the transposition table and the endgame builder's
//! per-position arrays are read and written at random over hundreds of megabytes to
//! gigabytes, and with 4 KiB pages nearly every such access also misses the TLB (the
//! page tables of a few gigabytes do not stay in cache). Linux backs memory with 2 MiB
//! pages where asked (transparent huge pages in `madvise` mode, the usual default);
//! asking is the one `unsafe` call here, outside the rules core.

use std::collections::TryReserveError;

/// `n` values made by `fill`, in memory the system is asked to back with huge pages
/// before any of it is written (so the kernel can hand them out from the start), or the
/// error if the memory cannot be had.
pub fn try_huge_vec<T>(n: usize, fill: impl FnMut() -> T) -> Result<Vec<T>, TryReserveError> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)?;
    advise_huge_pages(v.as_ptr() as *const u8, n * std::mem::size_of::<T>());
    v.resize_with(n, fill);
    Ok(v)
}

/// Asks Linux to back `ptr..ptr + len` with 2 MiB pages. Elsewhere, or if refused, a
/// no-op: only the speed changes, never the contents.
#[cfg(target_os = "linux")]
fn advise_huge_pages(ptr: *const u8, len: usize) {
    const HUGE: usize = 2 << 20;
    let start = (ptr as usize).next_multiple_of(HUGE);
    let end = (ptr as usize + len) / HUGE * HUGE;
    if end > start {
        // SAFETY: `start..end` lies inside the allocation `ptr..ptr + len`, which the
        // caller owns; MADV_HUGEPAGE changes only how the kernel backs those pages, never
        // their contents, and a refusal (an error return) is harmless.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_ptr: *const u8, _len: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_vector_holds_what_it_was_filled_with() {
        let mut k = 0u32;
        let v = try_huge_vec(3 << 20, || {
            k += 1;
            k
        })
        .unwrap();
        assert_eq!(v.len(), 3 << 20);
        assert!(v.iter().enumerate().all(|(i, &x)| x == i as u32 + 1));
        assert!(try_huge_vec::<u64>(usize::MAX / 4, || 0).is_err());
    }
}
