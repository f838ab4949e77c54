//! Time allocation: for every Hub limit form and many clock states, the hard limit never
//! reaches past the clock (remaining time minus the move overhead) and soft <= hard.

use std::time::Duration;

use tammi::search::Limits;
use tammi::search::time::allocate;

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

#[test]
fn never_past_the_clock() {
    let times = [
        0, 1, 5, 20, 49, 50, 51, 100, 333, 1_000, 4_999, 60_000, 300_000, 7_200_000,
    ];
    let incs = [0, 1, 100, 1_000, 10_000, 60_000];
    let overheads = [0, 10, 50, 200, 1_000];
    let mut checked = 0;
    for &t in &times {
        for &inc in &incs {
            for mtg in [
                None,
                Some(1),
                Some(2),
                Some(5),
                Some(20),
                Some(40),
                Some(200),
            ] {
                for &o in &overheads {
                    let limits = Limits::clock(ms(t), ms(inc), mtg);
                    let b = allocate(&limits, ms(o)).expect("a clock limits time");
                    let usable = ms(t).saturating_sub(ms(o));
                    assert!(
                        b.hard <= usable,
                        "time={t} inc={inc} mtg={mtg:?} overhead={o}: hard {:?} > {usable:?}",
                        b.hard
                    );
                    assert!(b.soft <= b.hard, "soft past hard: {b:?}");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 1000);
}

#[test]
fn move_time_and_its_overhead() {
    for t in [1, 10, 100, 1_000, 10_000] {
        for o in [0, 5, 50, 500] {
            let b = allocate(&Limits::move_time(ms(t)), ms(o)).unwrap();
            assert!(b.hard <= ms(t), "move time {t} overhead {o}: {b:?}");
            assert!(b.hard >= ms(t) / 2, "half the move time at least: {b:?}");
            assert_eq!(b.soft, b.hard);
        }
    }
    // A move time and a clock together: the tighter wins.
    let both = Limits {
        move_time: Some(ms(5_000)),
        ..Limits::clock(ms(1_000), ms(0), None)
    };
    assert!(allocate(&both, ms(10)).unwrap().hard < ms(1_000));
}

#[test]
fn more_time_means_more_thinking() {
    let mut last = Duration::ZERO;
    for t in [1_000, 10_000, 60_000, 600_000] {
        let b = allocate(&Limits::clock(ms(t), ms(0), None), ms(50)).unwrap();
        assert!(b.soft > last, "{t}: {b:?}");
        last = b.soft;
    }
    // An increment is worth spending: with time=10s inc=2s a move gets more than without.
    let plain = allocate(&Limits::clock(ms(10_000), ms(0), None), ms(50)).unwrap();
    let inc = allocate(&Limits::clock(ms(10_000), ms(2_000), None), ms(50)).unwrap();
    assert!(inc.soft > plain.soft);
    // The last move before the control may use most of the clock.
    let last_move = allocate(&Limits::clock(ms(10_000), ms(0), Some(1)), ms(50)).unwrap();
    assert!(last_move.hard > ms(5_000));
}

#[test]
fn no_time_limit_without_a_clock() {
    assert_eq!(allocate(&Limits::depth(10), ms(50)), None);
    assert_eq!(allocate(&Limits::nodes(10), ms(50)), None);
    assert_eq!(allocate(&Limits::infinite(), ms(50)), None);
}
