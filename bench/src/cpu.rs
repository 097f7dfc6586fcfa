//! The benchmarks' CPU clock: CPU time, not wall time, on a shared machine.

/// This thread's CPU time, s (`CLOCK_THREAD_CPUTIME_ID`).
pub fn cpu_s() -> f64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid timespec for the call to write.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    assert_eq!(rc, 0, "clock_gettime");
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}
