//! Buffered messages: writers, readers and mutators in schedules, each
//! reader's own cursor, the double buffer's expiry and the count of
//! messages a reader lost, the `on_message` condition, fixed-step loops,
//! and the bad input (unregistered types, conflicting parameters, a
//! panicking reader).

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

use common::drop_log::{DropLog, Payload};
use common::integrity::integrity;
use common::panics::expect_panic;
use ecs::message::{message_update_system, MessageCursor, MessageRegistry, ShouldUpdateMessages};
use ecs::prelude::*;
use ecs::system::RunSystemError;

#[derive(Message, Debug, Clone, Copy, PartialEq, Default)]
struct Hit(u32);

#[derive(Resource, Default, Debug)]
struct Seen(Vec<u32>);

#[derive(Resource, Default, Debug)]
struct SeenToo(Vec<u32>);

/// What a reader reported lost.
#[derive(Resource, Default, Debug)]
struct Missed(usize);

fn world_with_hits() -> World {
    let mut world = World::new();
    world.add_message::<Hit>();
    world.init_resource::<Seen>();
    world.init_resource::<SeenToo>();
    world.init_resource::<Missed>();
    world
}

fn record(mut hits: MessageReader<Hit>, mut seen: ResMut<Seen>) {
    seen.0.extend(hits.read().map(|h| h.0));
}

fn record_too(mut hits: MessageReader<Hit>, mut seen: ResMut<SeenToo>) {
    seen.0.extend(hits.read().map(|h| h.0));
}

fn hits(world: &World) -> usize {
    world.resource::<Messages<Hit>>().len()
}

// ---- writing and reading in schedules ---------------------------------------------------

#[test]
fn writer_mutator_and_reader_in_a_schedule() {
    let mut world = world_with_hits();
    let mut schedule = Schedule::default();
    schedule.add_systems(
        (
            message_update_system,
            |mut w: MessageWriter<Hit>, mut n: Local<u32>| {
                *n += 1;
                w.write(Hit(*n));
            },
            |mut m: MessageMutator<Hit>| {
                for hit in m.read() {
                    hit.0 *= 10;
                }
            },
            record,
        )
            .chain(),
    );
    for _ in 0..4 {
        schedule.run(&mut world);
    }
    assert_eq!(world.resource::<Seen>().0, [10, 20, 30, 40]);
    // Two updates' worth at most: the last frame's and the one before.
    assert_eq!(hits(&world), 2);
}

#[test]
fn every_reader_sees_every_message_once() {
    let mut world = world_with_hits();
    let mut schedule = Schedule::default();
    schedule.add_systems((message_update_system, (record, record_too)).chain());
    for frame in 0..5u32 {
        world.write_message_batch([Hit(2 * frame), Hit(2 * frame + 1)]);
        schedule.run(&mut world);
        // A run without writes reads nothing new.
        schedule.run(&mut world);
    }
    let all: Vec<u32> = (0..10).collect();
    assert_eq!(world.resource::<Seen>().0, all);
    assert_eq!(world.resource::<SeenToo>().0, all);
}

#[test]
fn each_system_keeps_its_own_cursor() {
    static READS: AtomicUsize = AtomicUsize::new(0);
    fn count(mut hits: MessageReader<Hit>) {
        READS.fetch_add(hits.read().count(), Ordering::Relaxed);
    }
    let mut world = world_with_hits();
    world.write_message_batch([Hit(1), Hit(2), Hit(3)]);
    // The same function twice: two systems, two cursors.
    let mut schedule = Schedule::default();
    schedule.add_systems((count, count));
    schedule.run(&mut world);
    assert_eq!(READS.load(Ordering::Relaxed), 6);
    schedule.run(&mut world);
    assert_eq!(READS.load(Ordering::Relaxed), 6);
    // A new system starts from the oldest stored message.
    world.run_system_once(count).unwrap();
    assert_eq!(READS.load(Ordering::Relaxed), 9);
}

#[test]
fn read_with_id_yields_ids_in_write_order() {
    let mut world = world_with_hits();
    let first = world.write_message(Hit(7)).unwrap();
    let batch: Vec<_> = world
        .write_message_batch([Hit(8), Hit(9)])
        .unwrap()
        .collect();
    let default = world.write_message_default::<Hit>().unwrap();
    assert_eq!(
        [first.id, batch[0].id, batch[1].id, default.id],
        [0, 1, 2, 3]
    );
    assert!(first < batch[0]);
    assert_eq!(format!("{first}"), "message<Hit>#0");
    let read = world
        .run_system_once(|mut hits: MessageReader<Hit>| {
            hits.read_with_id()
                .map(|(h, id)| (h.0, id.id))
                .collect::<Vec<_>>()
        })
        .unwrap();
    assert_eq!(read, [(7, 0), (8, 1), (9, 2), (0, 3)]);
}

#[test]
fn writer_batch_and_default() {
    let mut world = world_with_hits();
    let ids = world
        .run_system_once(|mut w: MessageWriter<Hit>| {
            let batch = w.write_batch([Hit(1), Hit(2)]);
            assert_eq!(batch.len(), 2);
            let last = w.write_default();
            (batch.map(|id| id.id).collect::<Vec<_>>(), last.id)
        })
        .unwrap();
    assert_eq!(ids, (vec![0, 1], 2));
    world.run_system_once(record).unwrap();
    assert_eq!(world.resource::<Seen>().0, [1, 2, 0]);
}

#[test]
fn len_is_empty_and_clear() {
    let mut world = world_with_hits();
    world.write_message_batch([Hit(1), Hit(2), Hit(3)]);
    let mut system = IntoSystem::into_system(|mut hits: MessageReader<Hit>| {
        let before = (hits.len(), hits.is_empty());
        hits.clear();
        (before, hits.len(), hits.is_empty(), hits.read().count())
    });
    system.initialize(&mut world);
    assert_eq!(
        system.run((), &mut world).unwrap(),
        ((3, false), 0, true, 0)
    );
    world.write_message(Hit(4));
    assert_eq!(
        system.run((), &mut world).unwrap(),
        ((1, false), 0, true, 0)
    );
}

#[test]
fn commands_write_messages_when_applied() {
    let mut world = world_with_hits();
    world
        .run_system_once(|mut commands: Commands| {
            commands.write_message(Hit(5)).write_message(Hit(6));
        })
        .unwrap();
    world.run_system_once(record).unwrap();
    assert_eq!(world.resource::<Seen>().0, [5, 6]);
}

#[test]
fn par_read_visits_every_message_once() {
    let mut world = world_with_hits();
    world.write_message_batch((0..1000).map(Hit));
    world.resource_mut::<Messages<Hit>>().update();
    world.write_message_batch((1000..2000).map(Hit));
    let mut system = IntoSystem::into_system(|mut hits: MessageReader<Hit>| {
        let sum = AtomicUsize::new(0);
        let read = hits.par_read();
        let len = read.len();
        read.for_each(|h| {
            sum.fetch_add(h.0 as usize, Ordering::Relaxed);
        });
        (len, sum.into_inner(), hits.len())
    });
    system.initialize(&mut world);
    assert_eq!(
        system.run((), &mut world).unwrap(),
        (2000, 1999 * 2000 / 2, 0)
    );
    assert_eq!(system.run((), &mut world).unwrap(), (0, 0, 0));
}

#[test]
fn mutator_par_read_changes_every_message() {
    let mut world = world_with_hits();
    world.write_message_batch((0..100).map(Hit));
    world
        .run_system_once(|mut hits: MessageMutator<Hit>| hits.par_read().for_each(|h| h.0 += 1))
        .unwrap();
    world.run_system_once(record).unwrap();
    assert_eq!(world.resource::<Seen>().0, (1..=100).collect::<Vec<_>>());
}

// ---- the double buffer ----------------------------------------------------------------

#[test]
fn a_message_lives_until_the_second_update_after_it() {
    let mut messages = Messages::<Hit>::default();
    let mut cursor = messages.get_cursor();
    messages.write(Hit(1));
    messages.update();
    assert_eq!(messages.len(), 1);
    messages.write(Hit(2));
    messages.update();
    // `Hit(1)` is gone, `Hit(2)` still there.
    assert_eq!(messages.len(), 1);
    assert_eq!(cursor.missed_messages(&messages), 1);
    assert_eq!(cursor.read(&messages).map(|h| h.0).collect::<Vec<_>>(), [2]);
    assert_eq!(cursor.total_missed(), 1);
    assert_eq!(cursor.missed_messages(&messages), 0);
    // A current cursor skips what is stored.
    messages.write(Hit(3));
    let mut current = messages.get_cursor_current();
    assert_eq!(current.read(&messages).count(), 0);
    messages.write(Hit(4));
    assert_eq!(
        current.read(&messages).map(|h| h.0).collect::<Vec<_>>(),
        [4]
    );
}

#[test]
fn a_reader_that_skips_two_updates_counts_what_it_lost() {
    let mut world = world_with_hits();
    let mut reader = IntoSystem::into_system(|mut hits: MessageReader<Hit>| {
        let missed_before = hits.missed_messages();
        let read: Vec<u32> = hits.read().map(|h| h.0).collect();
        (missed_before, read, hits.missed_messages())
    });
    reader.initialize(&mut world);
    world.write_message_batch([Hit(1), Hit(2)]);
    message_update_system(&mut world);
    world.write_message(Hit(3));
    message_update_system(&mut world);
    // One update between reads: nothing lost.
    assert_eq!(reader.run((), &mut world).unwrap(), (2, vec![3], 2));
    world.write_message(Hit(4));
    message_update_system(&mut world);
    assert_eq!(reader.run((), &mut world).unwrap(), (2, vec![4], 2));
}

#[test]
fn a_reader_between_every_two_updates_misses_nothing() {
    let mut world = world_with_hits();
    let mut schedule = Schedule::default();
    schedule.add_systems((record, message_update_system).chain());
    for frame in 0..10 {
        world.write_message(Hit(frame));
        schedule.run(&mut world);
    }
    assert_eq!(world.resource::<Seen>().0, (0..10).collect::<Vec<_>>());
    let missed = world
        .run_system_once(|hits: MessageReader<Hit>| hits.missed_messages())
        .unwrap();
    // A fresh reader started after two updates dropped the early ones.
    assert_eq!(missed, 0);
}

#[test]
fn an_unread_buffer_holds_at_most_two_updates_worth() {
    let mut world = world_with_hits();
    let mut schedule = Schedule::default();
    schedule.add_systems(message_update_system);
    for frame in 0..100 {
        world.write_message_batch((0..frame % 7).map(Hit));
        schedule.run(&mut world);
        assert!(hits(&world) <= 12, "frame {frame}: {} stored", hits(&world));
    }
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(hits(&world), 0);
}

#[test]
fn registering_twice_updates_once() {
    let mut world = world_with_hits();
    world.add_message::<Hit>();
    MessageRegistry::register_message::<Hit>(&mut world);
    world.write_message(Hit(1));
    message_update_system(&mut world);
    assert_eq!(hits(&world), 1);
    MessageRegistry::deregister_messages::<Hit>(&mut world);
    assert!(!world.contains_resource::<Messages<Hit>>());
    message_update_system(&mut world);
}

// ---- on_message ------------------------------------------------------------------------

#[test]
fn on_message_runs_a_system_once_per_batch() {
    #[derive(Resource, Default)]
    struct Runs(u32);
    let mut world = world_with_hits();
    world.init_resource::<Runs>();
    let mut schedule = Schedule::default();
    schedule.add_systems((
        message_update_system,
        (|mut runs: ResMut<Runs>| runs.0 += 1)
            .run_if(on_message::<Hit>)
            .after(message_update_system),
    ));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Runs>().0, 0);
    world.write_message_batch([Hit(1), Hit(2)]);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Runs>().0, 1);
    // Still buffered, but already seen by the condition.
    schedule.run(&mut world);
    assert_eq!(world.resource::<Runs>().0, 1);
    world.write_message(Hit(3));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Runs>().0, 2);
}

// ---- fixed-step loops -----------------------------------------------------------------

#[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
struct Frame;

#[derive(ScheduleLabel, Clone, Debug, PartialEq, Eq, Hash)]
struct FixedStep;

/// How many fixed steps each frame runs: zero, one or several.
#[derive(Resource)]
struct Steps(Vec<usize>, usize);

fn run_fixed_steps(world: &mut World) {
    let mut steps = world.resource_mut::<Steps>();
    let n = steps.0[steps.1 % steps.0.len()];
    steps.1 += 1;
    for _ in 0..n {
        world.run_schedule(FixedStep);
    }
}

fn write_per_frame(mut hits: MessageWriter<Hit>, mut n: Local<u32>) {
    hits.write(Hit(*n));
    *n += 1;
}

/// A frame loop writing one message per frame, read in the fixed step.
fn fixed_step_world(fixed: impl FnOnce(&mut Schedule), frame: impl FnOnce(&mut Schedule)) -> World {
    let mut world = world_with_hits();
    // Until the first step runs, `message_update_condition` holds updates back.
    world.resource_mut::<MessageRegistry>().should_update = ShouldUpdateMessages::Waiting;
    world.insert_resource(Steps(vec![0, 0, 1, 3, 0, 2, 0, 0, 1], 0));
    let mut fixed_schedule = Schedule::new(FixedStep);
    fixed(&mut fixed_schedule);
    // Readers start counting losses from their system's initialisation.
    fixed_schedule.initialize(&mut world).unwrap();
    world.add_schedule(fixed_schedule);
    let mut frame_schedule = Schedule::new(Frame);
    frame(&mut frame_schedule);
    world.add_schedule(frame_schedule);
    for _ in 0..90 {
        world.run_schedule(Frame);
    }
    // A last step, so the last frames' messages get read.
    world.run_schedule(FixedStep);
    world
}

#[test]
fn fixed_step_updating_once_per_frame_loses_messages_and_says_so() {
    let world = fixed_step_world(
        |fixed| {
            fixed.add_systems(record);
        },
        |frame| {
            frame.add_systems((write_per_frame, run_fixed_steps, message_update_system).chain());
        },
    );
    // Frames with no fixed step let two updates pass between reads.
    let seen = world.resource::<Seen>().0.len();
    assert!(seen < 90, "{seen} read");
    let mut world = world;
    let cursor_missed = world
        .run_system_once(|hits: MessageReader<Hit>| hits.missed_messages())
        .unwrap();
    assert_eq!(cursor_missed, 0, "a fresh reader lost nothing yet");
}

#[test]
fn fixed_step_reader_counts_its_losses() {
    let world = fixed_step_world(
        |fixed| {
            fixed.add_systems(
                |mut hits: MessageReader<Hit>,
                 mut seen: ResMut<Seen>,
                 mut missed: ResMut<Missed>| {
                    seen.0.extend(hits.read().map(|h| h.0));
                    missed.0 = hits.missed_messages();
                },
            );
        },
        |frame| {
            frame.add_systems((write_per_frame, run_fixed_steps, message_update_system).chain());
        },
    );
    let (seen, missed) = (
        world.resource::<Seen>().0.len(),
        world.resource::<Missed>().0,
    );
    assert_eq!(
        seen + missed,
        90,
        "every message was either read or counted lost"
    );
}

#[test]
fn fixed_step_updating_with_the_readers_delivers_exactly_once() {
    let world = fixed_step_world(
        |fixed| {
            fixed.add_systems((record, message_update_system).chain());
        },
        |frame| {
            frame.add_systems((write_per_frame, run_fixed_steps).chain());
        },
    );
    assert_eq!(world.resource::<Seen>().0, (0..90).collect::<Vec<_>>());
}

#[test]
fn fixed_step_updating_after_a_step_ran_delivers_exactly_once() {
    use ecs::message::{message_update_condition, signal_message_update_system};
    let mut world = fixed_step_world(
        |fixed| {
            fixed.add_systems((record, signal_message_update_system).chain());
        },
        |frame| {
            frame.add_systems(
                (
                    write_per_frame,
                    run_fixed_steps,
                    message_update_system.run_if(message_update_condition),
                )
                    .chain(),
            );
        },
    );
    assert_eq!(world.resource::<Seen>().0, (0..90).collect::<Vec<_>>());
    // A reader in the frame schedule would see them too: nothing was lost.
    let missed = world
        .run_system_once(|hits: MessageReader<Hit>| hits.missed_messages())
        .unwrap();
    assert_eq!(missed, 0);
}

// ---- bad input -------------------------------------------------------------------------

#[derive(Message)]
struct Unregistered;

#[test]
fn an_unregistered_message_parameter_fails_validation_naming_the_message_and_system() {
    fn listen(mut r: MessageReader<Unregistered>) {
        r.clear();
    }
    let mut world = World::new();
    let Err(RunSystemError::Failed(error)) = world.run_system_once(listen) else {
        panic!("an unregistered reader fails validation");
    };
    let message = error.to_string();
    assert!(message.contains("messages::Unregistered"), "{message}");
    assert!(message.contains("listen"), "{message}");
    assert!(message.contains("add_message"), "{message}");
    let writer = world.run_system_once(|mut w: MessageWriter<Unregistered>| {
        w.write(Unregistered);
    });
    let Err(RunSystemError::Failed(error)) = writer else {
        panic!("an unregistered writer fails validation");
    };
    assert!(
        error.to_string().contains("messages::Unregistered"),
        "{error}"
    );
    let mutator = world.run_system_once(|mut m: MessageMutator<Unregistered>| m.clear());
    assert!(matches!(mutator, Err(RunSystemError::Failed(_))));
    // In a schedule, the default error handler panics with the same text.
    let mut schedule = Schedule::default();
    schedule.add_systems(listen);
    let message = expect_panic(|| schedule.run(&mut world));
    assert!(message.contains("messages::Unregistered"), "{message}");
    assert!(message.contains("listen"), "{message}");
}

#[test]
fn optional_message_parameters_of_an_unregistered_type_are_none() {
    let mut world = World::new();
    let reader = world.run_system_once(|r: Option<MessageReader<Unregistered>>| r.is_none());
    let writer = world.run_system_once(|w: Option<MessageWriter<Unregistered>>| w.is_none());
    let mutator = world.run_system_once(|m: Option<MessageMutator<Unregistered>>| m.is_none());
    assert!(reader.unwrap() && writer.unwrap() && mutator.unwrap());
    world.add_message::<Unregistered>();
    world.write_message(Unregistered);
    let read = world
        .run_system_once(|r: Option<MessageReader<Unregistered>>| r.map(|mut r| r.read().count()))
        .unwrap();
    assert_eq!(read, Some(1));
}

#[test]
fn writing_an_unregistered_message_returns_none() {
    let mut world = World::new();
    assert!(world.write_message(Unregistered).is_none());
    assert!(world.write_message_batch([Unregistered]).is_none());
    let message = expect_panic(|| {
        world.run_system_once(|mut commands: Commands| {
            commands.write_message(Unregistered);
        })
    });
    assert!(message.contains("messages::Unregistered"), "{message}");
}

#[test]
fn two_writers_of_one_type_in_one_system_conflict() {
    fn twice(_a: MessageWriter<Hit>, _b: MessageWriter<Hit>) {}
    let mut world = world_with_hits();
    let message = expect_panic(|| world.run_system_once(twice));
    assert!(message.contains("B0002"), "{message}");
    assert!(message.contains("Messages<messages::Hit>"), "{message}");
    assert!(
        message.contains("`MessageWriter<messages::Hit>`"),
        "{message}"
    );
}

#[test]
fn a_writer_and_a_reader_of_one_type_in_one_system_conflict_as_in_bevy() {
    fn both(_w: MessageWriter<Hit>, _r: MessageReader<Hit>) {}
    let mut world = world_with_hits();
    let message = expect_panic(|| world.run_system_once(both));
    assert!(message.contains("Messages<messages::Hit>"), "{message}");
    // The mutator reads and writes in one parameter, and sees its own writes.
    let read = world
        .run_system_once(|mut m: MessageMutator<Hit>| {
            m.write(Hit(1));
            m.write_batch([Hit(2)]);
            m.write_default();
            m.read().map(|h| h.0).collect::<Vec<_>>()
        })
        .unwrap();
    assert_eq!(read, [1, 2, 0]);
    // Readers of different types, and a writer of another, are fine.
    world.add_message::<Unregistered>();
    world
        .run_system_once(|_w: MessageWriter<Unregistered>, _r: MessageReader<Hit>| {})
        .unwrap();
}

#[test]
fn a_panicking_reader_leaves_the_world_and_its_cursor_consistent() {
    #[derive(Message)]
    struct Bomb(Payload);
    let log = DropLog::default();
    let mut world = World::new();
    world.add_message::<Bomb>();
    world.init_resource::<Seen>();
    world.write_message_batch((0..5).map(|i| Bomb(Payload::new(i, &log))));
    let mut schedule = Schedule::default();
    schedule.add_systems(|mut bombs: MessageReader<Bomb>, mut seen: ResMut<Seen>| {
        for bomb in bombs.read() {
            seen.0.push(bomb.0.id);
            if bomb.0.id == 1 && seen.0.len() == 2 {
                panic!("reader gave up at {}", bomb.0.id);
            }
        }
    });
    let outcome = catch_unwind(AssertUnwindSafe(|| schedule.run(&mut world)));
    assert!(outcome.is_err());
    integrity(&world);
    // The cursor stopped after the message it yielded last.
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().0, [0, 1, 2, 3, 4]);
    log.assert_not_dropped(&[0, 1, 2, 3, 4]);
    message_update_system(&mut world);
    message_update_system(&mut world);
    log.assert_dropped_once(&[0, 1, 2, 3, 4]);
    drop(world);
    log.assert_no_double_drop();
}

#[test]
fn a_message_whose_drop_panics_is_dropped_once() {
    #[derive(Message)]
    struct Bomb(#[allow(dead_code)] Payload);
    let log = DropLog::default();
    let mut world = World::new();
    world.add_message::<Bomb>();
    world.write_message_batch([
        Bomb(Payload::new(0, &log)),
        Bomb(Payload::armed(1, &log)),
        Bomb(Payload::new(2, &log)),
    ]);
    message_update_system(&mut world);
    let outcome = catch_unwind(AssertUnwindSafe(|| message_update_system(&mut world)));
    assert!(outcome.is_err());
    integrity(&world);
    log.assert_dropped_once(&[0, 1, 2]);
    // The registry and the buffer are back and keep working.
    assert!(world.contains_resource::<MessageRegistry>());
    world.write_message(Bomb(Payload::new(3, &log)));
    assert_eq!(world.resource::<Messages<Bomb>>().len(), 1);
    drop(world);
    log.assert_dropped_once(&[0, 1, 2, 3]);
}

#[test]
fn a_cursor_works_by_hand_in_a_local() {
    let mut world = world_with_hits();
    world.write_message_batch([Hit(1), Hit(2)]);
    let resent = world
        .run_system_once(
            |mut cursor: Local<MessageCursor<Hit>>, mut messages: ResMut<Messages<Hit>>| {
                let again: Vec<Hit> = cursor.read(&messages).copied().collect();
                messages.write_batch(again).len()
            },
        )
        .unwrap();
    assert_eq!(resent, 2);
    assert_eq!(hits(&world), 4);
}

#[derive(Message)]
struct Note(Payload);

/// The ids and payloads a fresh cursor reads from `Messages<Note>`.
fn notes(world: &World) -> Vec<(u32, usize)> {
    let messages = world.resource::<Messages<Note>>();
    let mut cursor = messages.get_cursor();
    cursor
        .read_with_id(messages)
        .map(|(note, id)| (note.0.id, id.id))
        .collect()
}

/// A batch whose iterator panics keeps the messages it gave, each under
/// its own id: readers see them, the next write takes the next id, and
/// updates go on.
#[test]
fn a_batch_whose_iterator_panics_keeps_what_it_gave_under_their_ids() {
    let log = DropLog::default();
    let mut world = World::new();
    world.add_message::<Note>();
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        world.write_message_batch((0..4).map(|i| {
            assert!(i < 2, "the iterator gives up at {i}");
            Note(Payload::new(i, &log))
        }));
    }));
    assert!(outcome.is_err());
    assert_eq!(notes(&world), [(0, 0), (1, 1)]);
    let id = world.write_message(Note(Payload::new(2, &log))).unwrap();
    assert_eq!(id.id, 2);
    let messages = world.resource::<Messages<Note>>();
    assert_eq!(messages.get_message(2).map(|(n, _)| n.0.id), Some(2));
    message_update_system(&mut world);
    message_update_system(&mut world);
    assert!(world.resource::<Messages<Note>>().is_empty());
    log.assert_dropped_once(&[0, 1, 2]);
}

/// An update whose dropped message panics leaves the buffers in step: a
/// reader that was up to date reads the next message, found by its id.
#[test]
fn an_update_whose_drop_panics_loses_no_later_message() {
    let log = DropLog::default();
    let mut messages = Messages::<Note>::default();
    messages.write(Note(Payload::armed(0, &log)));
    messages.write(Note(Payload::new(1, &log)));
    let mut cursor = messages.get_cursor();
    assert_eq!(cursor.read(&messages).count(), 2);
    messages.update();
    assert!(catch_unwind(AssertUnwindSafe(|| messages.update())).is_err());
    log.assert_dropped_once(&[0, 1]);
    let id = messages.write(Note(Payload::new(2, &log)));
    assert_eq!(messages.get_message(id.id).map(|(n, _)| n.0.id), Some(2));
    let read: Vec<u32> = cursor.read(&messages).map(|n| n.0.id).collect();
    assert_eq!(read, [2]);
}

/// `clear` drops every message even when one's `Drop` panics, and ids
/// go on from where they were.
#[test]
fn clear_drops_every_message_past_a_panicking_drop() {
    let log = DropLog::default();
    let mut messages = Messages::<Note>::default();
    messages.write(Note(Payload::armed(0, &log)));
    messages.update();
    messages.write(Note(Payload::new(1, &log)));
    assert!(catch_unwind(AssertUnwindSafe(|| messages.clear())).is_err());
    log.assert_dropped_once(&[0, 1]);
    assert!(messages.is_empty());
    let id = messages.write(Note(Payload::new(2, &log)));
    assert_eq!(id.id, 2);
    assert_eq!(messages.get_message(2).map(|(n, _)| n.0.id), Some(2));
    assert!(messages.get_message(1).is_none());
}

/// A type whose message panics when dropped does not hold back the
/// update of the types registered after it.
#[test]
fn one_panicking_type_does_not_hold_back_the_others_updates() {
    #[derive(Message)]
    struct Other(#[allow(dead_code)] Payload);
    let log = DropLog::default();
    let mut world = World::new();
    world.add_message::<Note>();
    world.add_message::<Other>();
    world.write_message(Note(Payload::armed(0, &log)));
    world.write_message(Other(Payload::new(1, &log)));
    message_update_system(&mut world);
    let outcome = catch_unwind(AssertUnwindSafe(|| message_update_system(&mut world)));
    assert!(outcome.is_err());
    log.assert_dropped_once(&[0, 1]);
    assert!(world.resource::<Messages<Other>>().is_empty());
}

/// A read stopped part way leaves the rest for the next read, also through
/// `nth`. The iterator holds the reader until it is dropped (it writes the
/// cursor back then), so a reader is asked again after `drop(iter)`, where
/// bevy's iterator frees it at its last use.
#[test]
fn a_read_stopped_part_way_leaves_the_rest() {
    let mut world = world_with_hits();
    world.write_message_batch((0..5).map(Hit));
    let (left, rest) = world
        .run_system_once(|mut reader: MessageReader<Hit>| {
            let mut iter = reader.read();
            assert_eq!(iter.next(), Some(&Hit(0)));
            assert_eq!(iter.nth(1), Some(&Hit(2)));
            drop(iter);
            let left = reader.len();
            let rest: Vec<u32> = reader.read().map(|h| h.0).collect();
            (left, rest)
        })
        .unwrap();
    assert_eq!((left, rest), (2, vec![3, 4]));
    let emptied = world
        .run_system_once(|mut mutator: MessageMutator<Hit>| {
            let mut iter = mutator.read();
            iter.next().unwrap().0 += 10;
            assert!(iter.nth(10).is_none());
            drop(iter);
            mutator.is_empty()
        })
        .unwrap();
    assert!(emptied);
}
