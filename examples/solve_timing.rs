//! Times the moving-phase solver pair by pair: `cargo run --release --example solve_timing -- nine 10 2 DIR`.
use morris::database::Database;
use morris::driver::PairProgress;
use morris::solve::{PairReport, Progress, Silent};
use morris::variant::Variant;

struct Print;
impl PairProgress for Print {
    fn end_pair(&self, pair: &str, r: &PairReport) {
        let total = r.init + r.propagate + r.finish;
        println!(
            "{pair:>7} states {:>12} levels {:>4} init {:>7.2}s prop {:>7.2}s finish {:>6.2}s  {:>6.2} Mstates/s  {:>6.1} Medges/s",
            r.states, r.levels, r.init.as_secs_f64(), r.propagate.as_secs_f64(), r.finish.as_secs_f64(),
            r.states as f64 / total.as_secs_f64() / 1e6, r.edges as f64 / r.propagate.as_secs_f64() / 1e6
        );
    }
    fn phases(&self) -> &dyn Progress {
        &Silent
    }
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let v = Variant::named(&a[1]).unwrap();
    let db = Database::new(&a[4], v);
    let t = std::time::Instant::now();
    db.solve_moving(a[2].parse().unwrap(), a[3].parse().unwrap(), &Print).unwrap();
    println!("total {:.2}s", t.elapsed().as_secs_f64());
}
