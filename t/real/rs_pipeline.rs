// rs_pipeline.rs -- a Rust program of some substance for make check-real
// (t/real/60-rust.t), built there with Debian's /usr/bin/rustc, no cargo.
//
// A producer thread makes JOBS texts from a fixed seed and sends them down
// a bounded channel (sync_channel: it blocks when the workers fall
// behind); WORKERS threads share the receiving end, count each text's
// words in a HashMap and work out a checksum inside catch_unwind, where
// one job in a few dozen panics (an explicit panic!, an index out of
// bounds, an unwrap of a failed parse); a collector thread merges what
// the workers send on a second channel.  Meanwhile a thread that panics
// uncaught is joined (its payload comes back), and scoped threads sort
// the words in chunks that main merges.  Every panic goes through a hook
// that keeps its message instead of printing it (the default hook's
// lines would interleave in no fixed order).
//
// What it prints depends only on its arguments, never on which thread
// did what: totals, the most frequent words, checksums, the panics by
// kind.  Usage: rs_pipeline [JOBS [WORKERS]] (default 6000 and 8).
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;

static PANICS: Mutex<Vec<String>> = Mutex::new(Vec::new());
static HOOKED: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    // Each worker's scratch list of long words: a thread-local with a
    // destructor that runs as the thread ends.
    static LONG: RefCell<Vec<String>> = RefCell::new(Vec::new());
}

// xorshift64*: the same texts on every run.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

const SYLLABLES: [&str; 16] = [
    "ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "zen", "qua", "bri", "dor", "fel", "gan", "hu", "jo",
];

fn text(rng: &mut Rng, words: usize) -> String {
    let mut s = String::new();
    for i in 0..words {
        if i > 0 {
            s.push(' ');
        }
        // Few syllables often, many rarely: a word list with a long tail.
        let n = 1 + (rng.next() % 7).min(rng.next() % 7) as usize;
        for _ in 0..n {
            s.push_str(SYLLABLES[(rng.next() % 16) as usize]);
        }
    }
    s
}

enum Job {
    Text { id: usize, body: String },
}

struct Done {
    words: HashMap<String, usize>,
    outcome: Result<u64, String>,
}

fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

// The work on one text; some ids panic, each in its own way.
fn checksum(id: usize, body: &str) -> u64 {
    if id % 97 == 13 {
        panic!("job {} refused: {} bytes", id, body.len());
    }
    if id % 101 == 7 {
        let v: Vec<u64> = body.split(' ').map(fnv).collect();
        return v[v.len() + id];
    }
    if id % 89 == 5 {
        let n: u64 = body.split(' ').next().unwrap().parse().unwrap();
        return n;
    }
    let mut h = 0u64;
    for w in body.split(' ') {
        h = h.rotate_left(5) ^ fnv(w);
        if w.len() > 16 {
            LONG.with(|l| l.borrow_mut().push(w.to_string()));
        }
    }
    h
}

fn panic_kind(msg: &str) -> &'static str {
    if msg.contains("refused") {
        "refused"
    } else if msg.contains("index out of bounds") {
        "index"
    } else if msg.contains("ParseIntError") || msg.contains("invalid digit") {
        "parse"
    } else if msg.contains("uncaught") {
        "uncaught"
    } else {
        "other"
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let jobs: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(6000);
    let workers: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(8);

    panic::set_hook(Box::new(|info| {
        let msg = if let Some(s) = info.payload().downcast_ref::<&str>() {
            s.to_string()
        } else if let Some(s) = info.payload().downcast_ref::<String>() {
            s.clone()
        } else {
            "?".to_string()
        };
        HOOKED.fetch_add(1, Ordering::SeqCst);
        PANICS.lock().unwrap_or_else(|e| e.into_inner()).push(msg);
    }));

    // A thread that panics with nobody to catch it: join gives the payload.
    let doomed = thread::Builder::new()
        .name("doomed".into())
        .spawn(|| -> usize { panic!("uncaught in {}", thread::current().name().unwrap_or("?")) })
        .unwrap();

    let (job_tx, job_rx) = mpsc::sync_channel::<Job>(64);
    let job_rx = Arc::new(Mutex::new(job_rx));
    let (done_tx, done_rx) = mpsc::channel::<Done>();

    let producer = thread::spawn(move || {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut bytes = 0usize;
        for id in 0..jobs {
            let words = 20 + (rng.next() % 60) as usize;
            let body = text(&mut rng, words);
            bytes += body.len();
            job_tx.send(Job::Text { id, body }).unwrap();
        }
        bytes // job_tx dropped here: the workers see the end
    });

    let mut pool = Vec::new();
    for w in 0..workers {
        let rx = Arc::clone(&job_rx);
        let tx = done_tx.clone();
        pool.push(
            thread::Builder::new()
                .name(format!("worker-{:02}", w))
                .spawn(move || {
                    let mut handled = 0usize;
                    loop {
                        let job = rx.lock().unwrap().recv();
                        let Job::Text { id, body } = match job {
                            Ok(j) => j,
                            Err(_) => break,
                        };
                        let mut words = HashMap::new();
                        for word in body.split(' ') {
                            *words.entry(word.to_string()).or_insert(0) += 1;
                        }
                        let outcome = panic::catch_unwind(AssertUnwindSafe(|| checksum(id, &body)))
                            .map_err(|p| {
                                p.downcast_ref::<String>()
                                    .cloned()
                                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                                    .unwrap_or_default()
                            });
                        tx.send(Done { words, outcome }).unwrap();
                        handled += 1;
                    }
                    let long = LONG.with(|l| l.borrow().len());
                    (handled, long)
                })
                .unwrap(),
        );
    }
    drop(done_tx);

    let collector = thread::spawn(move || {
        let mut words: HashMap<String, usize> = HashMap::new();
        let mut sum = 0u64;
        let mut ok = 0usize;
        let mut failed: BTreeMap<&'static str, usize> = BTreeMap::new();
        for d in done_rx {
            for (w, n) in d.words {
                *words.entry(w).or_insert(0) += n;
            }
            match d.outcome {
                Ok(h) => {
                    sum = sum.wrapping_add(h);
                    ok += 1;
                }
                Err(msg) => *failed.entry(panic_kind(&msg)).or_insert(0) += 1,
            }
        }
        (words, sum, ok, failed)
    });

    let bytes = producer.join().unwrap();
    let (mut handled, mut long) = (0, 0);
    for h in pool {
        let (n, l) = h.join().unwrap();
        handled += n;
        long += l;
    }
    let (words, sum, ok, failed) = collector.join().unwrap();
    let doomed_msg = match doomed.join() {
        Ok(_) => "returned".to_string(),
        Err(p) => p.downcast_ref::<String>().cloned().unwrap_or_else(|| "?".into()),
    };

    // The distinct words, sorted in chunks by scoped threads, then merged.
    let mut distinct: Vec<&String> = words.keys().collect();
    let chunk = (distinct.len() + 3) / 4;
    thread::scope(|s| {
        for part in distinct.chunks_mut(chunk.max(1)) {
            s.spawn(move || part.sort());
        }
    });
    let mut merged: Vec<&String> = Vec::with_capacity(distinct.len());
    let mut heads: Vec<&[&String]> = distinct.chunks(chunk.max(1)).collect();
    while heads.iter().any(|h| !h.is_empty()) {
        let (i, _) = heads
            .iter()
            .enumerate()
            .filter(|(_, h)| !h.is_empty())
            .min_by(|a, b| a.1[0].cmp(b.1[0]))
            .unwrap();
        merged.push(heads[i][0]);
        heads[i] = &heads[i][1..];
    }
    let sorted_ok = merged.windows(2).all(|w| w[0] <= w[1]);
    let order_sum = merged.iter().enumerate().fold(0u64, |h, (i, w)| h ^ fnv(w).rotate_left(i as u32 % 64));

    let mut top: Vec<(&String, &usize)> = words.iter().collect();
    top.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let mut out = String::new();
    writeln!(out, "jobs {} handled {} bytes {} workers {}", jobs, handled, bytes, workers).unwrap();
    writeln!(out, "checksums ok {} sum {:#018x}", ok, sum).unwrap();
    for (kind, n) in &failed {
        writeln!(out, "caught {:<8} {:>5}", kind, n).unwrap();
    }
    writeln!(out, "distinct words {} sorted {} order {:016x}", merged.len(), sorted_ok, order_sum).unwrap();
    for (w, n) in top.iter().take(8) {
        writeln!(out, "  {:>12} {:>7} {:5.2}%", w, n, **n as f64 * 100.0 / words.values().sum::<usize>() as f64)
            .unwrap();
    }
    writeln!(out, "long words seen by workers {}", long).unwrap();
    writeln!(out, "joined a panicked thread: {:?}", doomed_msg).unwrap();
    let msgs = PANICS.lock().unwrap();
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    for m in msgs.iter() {
        *kinds.entry(panic_kind(m)).or_insert(0) += 1;
    }
    writeln!(out, "panic hook ran {} times: {:?}", HOOKED.load(Ordering::SeqCst), kinds).unwrap();
    print!("{}", out);
}
