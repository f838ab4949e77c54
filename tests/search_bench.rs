//! The bench signature: the same build searching the same positions to the same depth on
//! one thread with a fresh table counts the same nodes, every time.

use tammi::search::bench;

#[test]
fn bench_node_count_is_deterministic() {
    let first: Vec<u64> = bench::run(5, |_| {}).iter().map(|l| l.nodes).collect();
    let second: Vec<u64> = bench::run(5, |_| {}).iter().map(|l| l.nodes).collect();
    assert_eq!(first, second);
    assert!(bench::POSITIONS.len() >= 20);
    assert!(first.iter().all(|&n| n > 0));
}

#[test]
fn bench_covers_every_seed_variant() {
    use tammi::rules::Variant::*;
    for v in [
        English,
        International,
        Russian,
        Brazilian,
        Canadian,
        Turkish,
    ] {
        assert!(
            bench::POSITIONS.iter().filter(|(pv, _)| *pv == v).count() >= 3,
            "{v}"
        );
    }
}
