//! Random interleavings of writes, reads and updates: a reader that reads
//! between every two updates sees every message exactly once, in order; a
//! reader that does not accounts for every message it lost; a buffer
//! nobody reads holds two updates' worth at most.
//!
//! The runs are deterministic: a fixed seed, and no failure files.

use ecs::message::{message_update_system, MessageRegistry};
use ecs::prelude::*;
use ecs::system::ReadOnlySystem;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

#[derive(Message, Debug, Clone, Copy, PartialEq)]
struct Num(u32);

const READERS: usize = 3;

#[derive(Debug, Clone)]
enum Op {
    /// Writes this many messages.
    Write(u8),
    /// Reader `i` reads.
    Read(usize),
    /// `message_update_system` runs.
    Update,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0u8..4).prop_map(Op::Write),
        3 => (0..READERS).prop_map(Op::Read),
        2 => Just(Op::Update),
    ]
}

fn config(cases: u32) -> Config {
    Config {
        cases,
        failure_persistence: None,
        rng_seed: RngSeed::Fixed(0x6d65_7373_6167_6573),
        ..Config::default()
    }
}

/// A reader system: what it read, and how many messages it lost so far.
type Reader = Box<dyn ReadOnlySystem<In = (), Out = (Vec<u32>, usize)>>;

/// A world with `Num` registered and `READERS` reader systems, each
/// returning what it read and how many messages it lost so far.
struct Harness {
    world: World,
    readers: Vec<Reader>,
    seen: Vec<Vec<u32>>,
    written: u32,
}

impl Harness {
    fn new() -> Self {
        let mut world = World::new();
        world.add_message::<Num>();
        let readers = (0..READERS)
            .map(|_| {
                let mut system = IntoSystem::into_system(|mut nums: MessageReader<Num>| {
                    let read = nums.read().map(|n| n.0).collect();
                    (read, nums.missed_messages())
                });
                system.initialize(&mut world);
                Box::new(system) as Reader
            })
            .collect();
        Harness {
            world,
            readers,
            seen: vec![Vec::new(); READERS],
            written: 0,
        }
    }

    fn write(&mut self, n: u8) {
        let start = self.written;
        self.written += u32::from(n);
        self.world
            .write_message_batch((start..self.written).map(Num))
            .unwrap();
    }

    /// Reader `i` reads; returns how many messages it lost so far.
    fn read(&mut self, i: usize) -> usize {
        let (read, missed) = self.readers[i].run((), &mut self.world).unwrap();
        self.seen[i].extend(read);
        missed
    }

    fn update(&mut self) {
        message_update_system(&mut self.world);
    }
}

proptest! {
    #![proptest_config(config(10_000))]

    /// Readers that read between every two updates (an update is preceded
    /// by the reads of every reader that already let one update pass) see
    /// every message exactly once, in write order, and lose none.
    #[test]
    fn readers_between_every_two_updates_see_everything_once(ops in prop::collection::vec(op(), 0..24)) {
        let mut h = Harness::new();
        let mut updates_since_read = [0u32; READERS];
        for op in ops {
            match op {
                Op::Write(n) => h.write(n),
                Op::Read(i) => {
                    prop_assert_eq!(h.read(i), 0);
                    updates_since_read[i] = 0;
                }
                Op::Update => {
                    for (i, since) in updates_since_read.iter_mut().enumerate() {
                        if *since == 1 {
                            prop_assert_eq!(h.read(i), 0);
                            *since = 0;
                        }
                    }
                    h.update();
                    updates_since_read.iter_mut().for_each(|u| *u += 1);
                }
            }
        }
        let all: Vec<u32> = (0..h.written).collect();
        for i in 0..READERS {
            prop_assert_eq!(h.read(i), 0);
            prop_assert_eq!(&h.seen[i], &all, "reader {}", i);
        }
    }

}

proptest! {
    #![proptest_config(config(1_000))]

    /// Readers that read whenever: each message is either read once, in
    /// order, or counted lost, never both, never neither.
    #[test]
    fn readers_at_any_pace_account_for_every_message(ops in prop::collection::vec(op(), 0..40)) {
        let mut h = Harness::new();
        for op in ops {
            match op {
                Op::Write(n) => h.write(n),
                Op::Read(i) => { h.read(i); }
                Op::Update => h.update(),
            }
        }
        for i in 0..READERS {
            let missed = h.read(i);
            let seen = &h.seen[i];
            prop_assert!(seen.windows(2).all(|w| w[0] < w[1]), "reader {} out of order: {:?}", i, seen);
            prop_assert_eq!(seen.len() + missed, h.written as usize, "reader {}", i);
        }
    }

    /// With nobody reading, the buffer holds exactly what was written since
    /// the second-to-last update.
    #[test]
    fn an_unread_buffer_holds_two_updates_worth(ops in prop::collection::vec(op(), 0..60)) {
        let mut world = World::new();
        MessageRegistry::register_message::<Num>(&mut world);
        // Messages written since the last update, and in the interval before it.
        let (mut newer, mut older) = (0usize, 0usize);
        for op in ops {
            match op {
                Op::Write(n) => {
                    world.write_message_batch((0..u32::from(n)).map(Num));
                    newer += usize::from(n);
                }
                Op::Update => {
                    message_update_system(&mut world);
                    older = std::mem::take(&mut newer);
                }
                Op::Read(_) => {}
            }
            prop_assert_eq!(world.resource::<Messages<Num>>().len(), newer + older);
        }
    }
}
