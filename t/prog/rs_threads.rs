// rs_threads.rs -- a Rust program that starts N threads one after another
// (std::thread asks glibc for its own stack before it allocates), each
// allocating; prints "threads N".  Built by the tests that run it with
// Debian's rustc (make deps).
use std::thread;

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let mut ok = 0usize;
    for i in 0..n {
        let h = thread::spawn(move || vec![1u8; 64 + i % 512].len());
        if h.join().map(|len| len > 0).unwrap_or(false) {
            ok += 1;
        }
    }
    println!("threads {}", ok);
}
