//! Model-based randomized test of the `World` (proptest).
//!
//! Proptest generates sequences of operations of the language in
//! `tests/model/lang.rs` (spawn, spawn_batch, insert over new and existing
//! components, insert_if_new, remove, take, despawn, clear_entities, get,
//! get_mut writes, query writes, `QueryState::get`, `get_many_mut`,
//! clear_trackers, command queues, parenting through `ChildOf` and
//! `add_child` with self-parents, dead parents and cycles refused, access
//! by component id (`get_by_id`, `get_mut_by_id`, `insert_by_id`,
//! `remove_by_id`) and the bulk `insert_all_with`, `remove_all` and
//! `despawn_all` over a `With` filter, snapshot (`snapshot_into` the kept
//! one after the first) and restore) over ten
//! component types (all opted into snapshots): table and
//! sparse-set storage, two zero-sized types, two `#[repr(align(64))]`
//! types, two drop-counting types, a `String` holder and a 1 KiB array.
//! Operations aim at every handle seen so far, so stale handles (and one
//! never-spawned handle) are part of every run.
//!
//! After every operation the harness compares the `World` with a plain
//! reference model (a map from entity to per-component values): every
//! live entity's values and `ChildOf`/`Children` (despawning a parent
//! despawns its descendants), the entity count, the result of twelve
//! persistent queries (`With`/`Without`/`Option`/`Changed`/`Added`/`Or`/
//! `Has`/`Ref`), the drop count of every tracked value, and
//! `World::check_integrity()`. A restore must bring back the model's copy
//! taken at the snapshot: values, change state, hierarchy and which
//! handles are live. At the end the world and the kept snapshot are
//! dropped and every copy of every tracked value must have been dropped
//! exactly once.
//!
//! Budget: 256 cases of up to 200 operations by default. Scale it with
//! `PROPTEST_CASES=<cases>` and `MODEL_OPS=<max operations per case>`, e.g.
//! `PROPTEST_CASES=10000 cargo test --release --test model`. Under Miri the
//! default is 4 cases of up to 30 operations (the same variables apply).
//! A failure shrinks to a minimal sequence, which proptest stores in
//! `tests/proptest-regressions/model.txt` (replayed first on the next
//! run); each one found is also kept below as an explicit `#[test]`.

use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, TestRunner};

#[path = "model/lang.rs"]
mod lang;

use lang::{CommandTarget, Op, QueuedCommand, BUNDLES, QUERIES};

// ---- strategies ------------------------------------------------------------------------

fn bundle() -> impl Strategy<Value = u8> {
    0..BUNDLES
}

fn val() -> impl Strategy<Value = u32> {
    0u32..1_000_000
}

fn target() -> impl Strategy<Value = u16> {
    any::<u16>()
}

fn command_target() -> impl Strategy<Value = CommandTarget> {
    prop_oneof![
        target().prop_map(CommandTarget::Old),
        any::<u8>().prop_map(CommandTarget::New),
    ]
}

fn command() -> impl Strategy<Value = QueuedCommand> {
    prop_oneof![
        3 => (bundle(), val()).prop_map(|(bundle, val)| QueuedCommand::Spawn { bundle, val }),
        1 => Just(QueuedCommand::SpawnEmpty),
        3 => (command_target(), bundle(), val()).prop_map(|(e, bundle, val)| QueuedCommand::Insert { e, bundle, val }),
        1 => (command_target(), bundle(), val())
            .prop_map(|(e, bundle, val)| QueuedCommand::InsertIfNew { e, bundle, val }),
        2 => (command_target(), bundle()).prop_map(|(e, bundle)| QueuedCommand::Remove { e, bundle }),
        2 => command_target().prop_map(|e| QueuedCommand::Despawn { e }),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        12 => (bundle(), val()).prop_map(|(bundle, val)| Op::Spawn { bundle, val }),
        2 => Just(Op::SpawnEmpty),
        4 => (bundle(), 0u8..12, val(), any::<bool>(), any::<bool>()).prop_map(
            |(bundle, n, val, exact, read)| Op::SpawnBatch { bundle, n, val, exact, read }
        ),
        12 => (target(), bundle(), val()).prop_map(|(e, bundle, val)| Op::Insert { e, bundle, val }),
        5 => (target(), bundle(), val())
            .prop_map(|(e, bundle, val)| Op::InsertIfNew { e, bundle, val }),
        8 => (target(), bundle()).prop_map(|(e, bundle)| Op::Remove { e, bundle }),
        5 => (target(), bundle()).prop_map(|(e, bundle)| Op::Take { e, bundle }),
        3 => (target(), bundle(), bundle(), val())
            .prop_map(|(e, a, b, val)| Op::Chain { e, a, b, val }),
        6 => (target(), any::<bool>()).prop_map(|(e, handle)| Op::Despawn { e, handle }),
        1 => Just(Op::ClearEntities),
        4 => (target(), 0u8..10).prop_map(|(e, comp)| Op::Get { e, comp }),
        5 => (target(), 0u8..10, val(), any::<bool>(), any::<bool>()).prop_map(
            |(e, comp, val, write, handle)| Op::GetMut { e, comp, val, write, handle }
        ),
        2 => (val(), any::<bool>()).prop_map(|(val, par)| Op::QueryWrite { val, par }),
        4 => (0..QUERIES, target()).prop_map(|(q, e)| Op::QueryGet { q, e }),
        2 => (target(), target(), val()).prop_map(|(a, b, val)| Op::GetManyMut { a, b, val }),
        3 => Just(Op::ClearTrackers),
        1 => Just(Op::Snapshot),
        2 => Just(Op::Restore),
        6 => prop::collection::vec(command(), 0..8).prop_map(Op::Commands),
        8 => (target(), target(), any::<bool>(), any::<bool>()).prop_map(
            |(e, parent, add_child, down)| Op::SetParent { e, parent, add_child, down }
        ),
        2 => target().prop_map(|e| Op::RemoveParent { e }),
        6 => (target(), 0u8..10, 0u8..4, val())
            .prop_map(|(e, comp, kind, val)| Op::ById { e, comp, kind, val }),
        3 => (0u8..10, bundle(), 0u8..3, val())
            .prop_map(|(filter, bundle, kind, val)| Op::Bulk { filter, bundle, kind, val }),
    ]
}

// ---- budget ----------------------------------------------------------------------------

fn env_or(name: &str, default: usize) -> usize {
    // Miri runs isolated by default, where the environment is empty.
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

const DEFAULT_CASES: usize = if cfg!(miri) { 4 } else { 256 };
const DEFAULT_OPS: usize = if cfg!(miri) { 30 } else { 200 };

fn config() -> Config {
    Config {
        cases: env_or("PROPTEST_CASES", DEFAULT_CASES) as u32,
        failure_persistence: if cfg!(miri) {
            None
        } else {
            Some(Box::new(FileFailurePersistence::Direct(
                "tests/proptest-regressions/model.txt",
            )))
        },
        // Persistence only runs for a named source file.
        source_file: Some(file!()),
        ..Config::default()
    }
}

// ---- the tests -------------------------------------------------------------------------

/// The model test: random operation sequences, checked after every step.
#[test]
fn world_agrees_with_model() {
    let max_ops = env_or("MODEL_OPS", DEFAULT_OPS);
    let mut runner = TestRunner::new(config());
    let result = runner.run(&prop::collection::vec(op(), 1..=max_ops), |ops| {
        lang::run(&ops);
        Ok(())
    });
    if let Err(err) = result {
        panic!("{err}");
    }
}

/// The fuzzer's decoder, exercised on pseudo-random bytes, so that the
/// fuzz target's language cannot rot unnoticed.
#[test]
fn decoded_bytes_agree_with_model() {
    let (cases, len) = if cfg!(miri) { (1, 64) } else { (64, 600) };
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..cases {
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 24) as u8
            })
            .collect();
        let ops = lang::decode(&bytes, 200);
        assert!(!ops.is_empty());
        lang::run(&ops);
    }
}

/// A handwritten sequence touching every operation once, with stale
/// handles, as a readable example of the language.
#[test]
fn every_operation_once() {
    use lang::CommandTarget::{New, Old};
    lang::run(&[
        Op::Spawn { bundle: 15, val: 1 },
        Op::SpawnEmpty,
        Op::SpawnBatch {
            bundle: 14,
            n: 3,
            val: 7,
            exact: true,
            read: true,
        },
        Op::SpawnBatch {
            bundle: 12,
            n: 4,
            val: 9,
            exact: false,
            read: false,
        },
        Op::Insert {
            e: 1,
            bundle: 11,
            val: 3,
        },
        Op::Insert {
            e: 0,
            bundle: 11,
            val: 4,
        },
        Op::InsertIfNew {
            e: 0,
            bundle: 16,
            val: 5,
        },
        Op::ClearTrackers,
        Op::GetMut {
            e: 0,
            comp: 4,
            val: 77,
            write: true,
            handle: false,
        },
        Op::Get { e: 0, comp: 4 },
        Op::Remove { e: 0, bundle: 10 },
        Op::Take { e: 2, bundle: 14 },
        Op::Chain {
            e: 3,
            a: 13,
            b: 12,
            val: 11,
        },
        Op::QueryWrite { val: 5, par: true },
        Op::QueryGet { q: 2, e: 0 },
        Op::GetManyMut { a: 0, b: 1, val: 8 },
        Op::Despawn {
            e: 0,
            handle: false,
        },
        Op::Despawn { e: 0, handle: true },
        Op::Insert {
            e: 0,
            bundle: 1,
            val: 3,
        },
        Op::Commands(vec![
            QueuedCommand::Spawn { bundle: 6, val: 2 },
            QueuedCommand::Insert {
                e: New(0),
                bundle: 7,
                val: 4,
            },
            QueuedCommand::Insert {
                e: Old(0),
                bundle: 7,
                val: 4,
            },
            QueuedCommand::Remove {
                e: Old(1),
                bundle: 15,
            },
            QueuedCommand::SpawnEmpty,
            QueuedCommand::Despawn { e: New(1) },
        ]),
        Op::Snapshot,
        Op::ClearEntities,
        Op::Spawn { bundle: 15, val: 2 },
        Op::Get { e: 0, comp: 6 },
        Op::Restore,
        Op::Spawn { bundle: 15, val: 3 },
        Op::Restore,
    ]);
}
