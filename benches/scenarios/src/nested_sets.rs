//! `nested_sets`: 50 small systems organised as a game organises them, and
//! the plain-Rust model their result is checked against.
//!
//! ```text
//! Input ──▶ Logic ─────────────────────────────────────▶ Render
//!           ├ Physics: Forces ──▶ Collisions
//!           ├ Ai (run_if ai_tick: every other frame)
//!           └ loose systems, spawn_sparks ──▶ count_sparks
//! ```
//!
//! Ten `u32` components `C0`..`C9`; ten archetypes of
//! [`PER_ARCHETYPE`] entities, archetype `k` holding `C{k}`, `C{k+1}`,
//! `C{k+2}` and `C{k+4}` (indices mod 10), so each pair query matches one
//! or two archetypes. Every system is `w = w.wrapping_add(r)` over one
//! `(&mut W, &R)` pair. Systems the schedule leaves unordered never read
//! a component the other writes (two writers of one component commute),
//! so every order the executors may pick gives the same values, and the
//! model ([`STEPS`], [`expected`]) can replay one order.
//!
//! The scenario itself is [`nested_sets_scenario!`](crate::nested_sets_scenario),
//! expanded once per library so both run the same systems, sets and check.

/// Archetypes in the scenario.
pub const ARCHETYPES: usize = 10;
/// Entities per archetype.
pub const PER_ARCHETYPE: usize = 320;
/// Component types `C0`..`C9`.
pub const COMPONENTS: usize = 10;
/// Entities `spawn_sparks` spawns through `Commands` each frame.
pub const SPARKS_PER_FRAME: u32 = 32;
/// Frames the check runs from a fresh start: every condition is both true
/// and false at least once.
pub const CHECK_FRAMES: u32 = 6;

/// The components of archetype `k`.
pub fn archetype(k: usize) -> [usize; 4] {
    [k, k + 1, k + 2, k + 4].map(|c| c % COMPONENTS)
}

/// The value component `c` of entity `id` starts with: distinct per entity
/// and component, so a system that reads the wrong row or column shows.
pub fn initial(id: usize, c: usize) -> u32 {
    (id * COMPONENTS + c + 1) as u32
}

/// One frame number's run condition, as the model sees it.
pub type When = fn(u32) -> bool;

fn always(_: u32) -> bool {
    true
}

/// `Ai`'s set condition: the `AiTick` flag, set on even frames.
pub fn ai_frame(frame: u32) -> bool {
    frame.is_multiple_of(2)
}

/// The condition of a few single systems.
pub fn third_frame(frame: u32) -> bool {
    frame.is_multiple_of(3)
}

/// The condition of the tuple `(logic_4, logic_5).run_if(..)`.
pub fn fourth_frame(frame: u32) -> bool {
    frame.is_multiple_of(4)
}

fn ai_and_third_frame(frame: u32) -> bool {
    ai_frame(frame) && third_frame(frame)
}

/// The pair systems in one order the schedule allows: (system, written
/// component, read component, when it runs).
pub const STEPS: &[(&str, usize, usize, When)] = &[
    ("input_0", 0, 2, always),
    ("input_1", 0, 3, always),
    ("input_2", 0, 9, always),
    ("input_3", 1, 4, always),
    ("input_4", 1, 8, always),
    ("input_5", 1, 2, third_frame),
    ("forces_0", 2, 0, always),
    ("forces_1", 2, 1, always),
    ("forces_2", 2, 4, always),
    ("forces_3", 3, 1, always),
    ("forces_4", 3, 9, always),
    ("forces_5", 2, 9, third_frame),
    ("forces_6", 3, 0, always),
    ("forces_7", 2, 3, always),
    ("collisions_0", 4, 2, always),
    ("collisions_1", 4, 3, always),
    ("collisions_2", 4, 0, always),
    ("collisions_3", 4, 1, always),
    ("collisions_4", 4, 8, always),
    ("collisions_5", 3, 2, always),
    ("ai_0", 5, 1, ai_frame),
    ("ai_1", 5, 8, ai_frame),
    ("ai_2", 5, 9, ai_frame),
    ("ai_6", 6, 5, ai_frame),
    ("ai_3", 6, 8, ai_frame),
    ("ai_4", 6, 9, ai_frame),
    ("ai_5", 6, 0, ai_frame),
    ("ai_7", 6, 9, ai_and_third_frame),
    ("logic_0", 7, 8, always),
    ("logic_1", 7, 9, always),
    ("logic_2", 7, 0, always),
    ("logic_3", 7, 1, always),
    ("logic_4", 7, 9, fourth_frame),
    ("logic_5", 7, 0, fourth_frame),
    ("render_0", 8, 0, always),
    ("render_1", 8, 1, always),
    ("render_2", 8, 2, always),
    ("render_3", 8, 4, always),
    ("render_4", 8, 5, always),
    ("render_5", 8, 6, always),
    ("render_6", 8, 7, always),
    ("render_7", 9, 0, always),
    ("render_8", 9, 1, always),
    ("render_9", 9, 2, always),
    ("render_10", 9, 3, ai_frame),
    ("render_11", 9, 5, always),
    ("render_12", 9, 7, always),
];

/// Every entity's components after `frames` runs from the start, indexed
/// by the entity's `Id`: `None` where the entity lacks the component.
pub fn expected(frames: u32) -> Vec<[Option<u32>; COMPONENTS]> {
    let mut values: Vec<[Option<u32>; COMPONENTS]> = (0..ARCHETYPES * PER_ARCHETYPE)
        .map(|id| {
            let mut row = [None; COMPONENTS];
            for c in archetype(id / PER_ARCHETYPE) {
                row[c] = Some(initial(id, c));
            }
            row
        })
        .collect();
    for frame in 1..=frames {
        for &(_, w, r, when) in STEPS {
            if !when(frame) {
                continue;
            }
            for row in &mut values {
                if let (Some(written), Some(read)) = (row[w], row[r]) {
                    row[w] = Some(written.wrapping_add(read));
                }
            }
        }
    }
    values
}

/// `(count, sum of frame numbers)` of the sparks `count_sparks` has seen
/// after `frames` runs from the start.
pub fn expected_sparks(frames: u32) -> (u32, u64) {
    let frame_sum: u64 = (1..=u64::from(frames)).sum();
    (
        SPARKS_PER_FRAME * frames,
        u64::from(SPARKS_PER_FRAME) * frame_sum,
    )
}

/// Defines the `nested_sets` scenario on the ECS whose prelude is in
/// scope (`ecs::prelude::*` or `bevy_ecs::prelude::*`, spelled alike): its
/// components, resources, sets, 50 systems and `pub fn nested_sets() ->
/// Box<dyn Case>`. One definition for both libraries keeps their systems,
/// sets and conditions identical.
#[macro_export]
macro_rules! nested_sets_scenario {
    () => {
        $crate::nested_sets_scenario! { @components C0 0, C1 1, C2 2, C3 3, C4 4, C5 5, C6 6, C7 7, C8 8, C9 9 }
        $crate::nested_sets_scenario! { @archetypes
            0: C0 0, C1 1, C2 2, C4 4;
            1: C1 1, C2 2, C3 3, C5 5;
            2: C2 2, C3 3, C4 4, C6 6;
            3: C3 3, C4 4, C5 5, C7 7;
            4: C4 4, C5 5, C6 6, C8 8;
            5: C5 5, C6 6, C7 7, C9 9;
            6: C6 6, C7 7, C8 8, C0 0;
            7: C7 7, C8 8, C9 9, C1 1;
            8: C8 8, C9 9, C0 0, C2 2;
            9: C9 9, C0 0, C1 1, C3 3;
        }
        $crate::nested_sets_scenario! { @systems
            input_0: C0 += C2; input_1: C0 += C3; input_2: C0 += C9;
            input_3: C1 += C4; input_4: C1 += C8; input_5: C1 += C2;
            forces_0: C2 += C0; forces_1: C2 += C1; forces_2: C2 += C4; forces_3: C3 += C1;
            forces_4: C3 += C9; forces_5: C2 += C9; forces_6: C3 += C0; forces_7: C2 += C3;
            collisions_0: C4 += C2; collisions_1: C4 += C3; collisions_2: C4 += C0;
            collisions_3: C4 += C1; collisions_4: C4 += C8; collisions_5: C3 += C2;
            ai_0: C5 += C1; ai_1: C5 += C8; ai_2: C5 += C9; ai_3: C6 += C8;
            ai_4: C6 += C9; ai_5: C6 += C0; ai_6: C6 += C5; ai_7: C6 += C9;
            logic_0: C7 += C8; logic_1: C7 += C9; logic_2: C7 += C0;
            logic_3: C7 += C1; logic_4: C7 += C9; logic_5: C7 += C0;
            render_0: C8 += C0; render_1: C8 += C1; render_2: C8 += C2; render_3: C8 += C4;
            render_4: C8 += C5; render_5: C8 += C6; render_6: C8 += C7; render_7: C9 += C0;
            render_8: C9 += C1; render_9: C9 += C2; render_10: C9 += C3; render_11: C9 += C5;
            render_12: C9 += C7;
        }

        /// Which entity this is, for the check.
        #[derive(Component)]
        struct Id(u32);

        /// Spawned by `spawn_sparks` with the frame number, counted and
        /// despawned by `count_sparks`.
        #[derive(Component)]
        struct Spark(u32);

        #[derive(Resource)]
        struct Frame(u32);

        #[derive(Resource)]
        struct AiTick(bool);

        #[derive(Resource, Default)]
        struct SparkLog {
            count: u32,
            sum: u64,
        }

        #[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
        enum Stage {
            Input,
            Logic,
            Render,
        }

        #[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
        struct Physics;

        #[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
        struct Forces;

        #[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
        struct Collisions;

        #[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
        struct Ai;

        fn advance_frame(mut frame: ResMut<Frame>, mut tick: ResMut<AiTick>) {
            frame.0 = frame.0.wrapping_add(1);
            tick.0 = $crate::nested_sets::ai_frame(frame.0);
        }

        fn ai_tick(tick: Res<AiTick>) -> bool {
            tick.0
        }

        fn every_third_frame(frame: Res<Frame>) -> bool {
            $crate::nested_sets::third_frame(frame.0)
        }

        fn every_fourth_frame(frame: Res<Frame>) -> bool {
            $crate::nested_sets::fourth_frame(frame.0)
        }

        fn spawn_sparks(mut commands: Commands, frame: Res<Frame>) {
            for _ in 0..$crate::nested_sets::SPARKS_PER_FRAME {
                commands.spawn(Spark(frame.0));
            }
        }

        fn count_sparks(
            sparks: Query<(Entity, &Spark)>,
            mut log: ResMut<SparkLog>,
            mut commands: Commands,
        ) {
            for (entity, spark) in &sparks {
                log.count = log.count.wrapping_add(1);
                log.sum = log.sum.wrapping_add(u64::from(spark.0));
                commands.entity(entity).despawn();
            }
        }

        fn build_schedule() -> Schedule {
            let mut schedule = Schedule::default();
            schedule.configure_sets((Stage::Input, Stage::Logic, Stage::Render).chain());
            schedule.configure_sets((Physics, Ai.run_if(ai_tick)).in_set(Stage::Logic));
            schedule.configure_sets((Forces, Collisions).chain().in_set(Physics));
            schedule.add_systems(
                (
                    advance_frame,
                    (input_0, input_1, input_2, input_3, input_4),
                    input_5.after(advance_frame).run_if(every_third_frame),
                )
                    .in_set(Stage::Input),
            );
            schedule.add_systems(
                (
                    (forces_0, forces_1, forces_2, forces_3, forces_4, forces_6),
                    forces_5.run_if(every_third_frame),
                    // Reads C3: after every writer of C3 in the set.
                    forces_7.after(forces_3).after(forces_4).after(forces_6),
                )
                    .in_set(Forces),
            );
            schedule.add_systems(
                (
                    (collisions_0, collisions_1, collisions_2, collisions_3, collisions_4),
                    collisions_5.after(collisions_1),
                )
                    .in_set(Collisions),
            );
            schedule.add_systems(
                (
                    (ai_0, ai_1, ai_2, ai_6).chain(),
                    (ai_3, ai_4, ai_5),
                    ai_7.run_if(every_third_frame),
                )
                    .in_set(Ai),
            );
            schedule.add_systems(
                (
                    (logic_0, logic_1, logic_2, logic_3),
                    (logic_4, logic_5).run_if(every_fourth_frame),
                    spawn_sparks,
                    count_sparks.after(spawn_sparks),
                )
                    .in_set(Stage::Logic),
            );
            schedule.add_systems(
                (
                    (render_0, render_1, render_2, render_3, render_4, render_5, render_6),
                    (render_7, render_8, render_9, render_11, render_12),
                    render_10.run_if(ai_tick),
                )
                    .in_set(Stage::Render),
            );
            schedule
        }

        fn start(world: &mut World) {
            world.insert_resource(Frame(0));
            world.insert_resource(AiTick(false));
            world.insert_resource(SparkLog::default());
        }

        struct NestedSets {
            world: World,
            schedule: Schedule,
        }

        fn verify(s: &mut NestedSets) {
            use $crate::nested_sets::{expected, expected_sparks, CHECK_FRAMES};
            let old: Vec<Entity> = s
                .world
                .query_filtered::<Entity, With<Id>>()
                .iter(&s.world)
                .collect();
            for entity in old {
                s.world.despawn(entity);
            }
            spawn_entities(&mut s.world);
            start(&mut s.world);
            for _ in 0..CHECK_FRAMES {
                s.schedule.run(&mut s.world);
            }
            check_values(&mut s.world, &expected(CHECK_FRAMES));
            let log = s.world.resource::<SparkLog>();
            assert_eq!((log.count, log.sum), expected_sparks(CHECK_FRAMES));
            assert_eq!(s.world.query::<&Spark>().iter(&s.world).count(), 0);
        }

        /// `nested_sets`: 50 systems in nested, chained and conditional
        /// sets, over ten archetypes.
        pub fn nested_sets() -> Box<dyn $crate::Case> {
            let mut world = World::new();
            spawn_entities(&mut world);
            start(&mut world);
            let schedule = build_schedule();
            $crate::case(
                NestedSets { world, schedule },
                |s| s.schedule.run(&mut s.world),
                verify,
            )
        }
    };
    (@components $($c:ident $i:literal),*) => {
        $(
            #[derive(Component)]
            struct $c(u32);
        )*

        fn check_values(
            world: &mut World,
            expected: &[[Option<u32>; $crate::nested_sets::COMPONENTS]],
        ) {
            $({
                let mut query = world.query::<(&Id, &$c)>();
                let mut count = 0;
                for (id, value) in query.iter(world) {
                    assert_eq!(
                        Some(value.0),
                        expected[id.0 as usize][$i],
                        "{} of entity {}",
                        stringify!($c),
                        id.0
                    );
                    count += 1;
                }
                let want = expected.iter().filter(|row| row[$i].is_some()).count();
                assert_eq!(count, want, "entities with {}", stringify!($c));
            })*
        }
    };
    (@archetypes $($k:literal: $($c:ident $i:literal),*;)*) => {
        fn spawn_entities(world: &mut World) {
            use $crate::nested_sets::{initial, PER_ARCHETYPE};
            $(
                world.spawn_batch((0..PER_ARCHETYPE).map(|n| {
                    let id = $k * PER_ARCHETYPE + n;
                    (Id(id as u32), $($c(initial(id, $i))),*)
                }));
            )*
        }
    };
    (@systems $($name:ident: $w:ident += $r:ident;)*) => {
        $(
            fn $name(mut query: Query<(&mut $w, &$r)>) {
                for (mut w, r) in &mut query {
                    w.0 = w.0.wrapping_add(r.0);
                }
            }
        )*
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_archetype_is_spawned_and_every_pair_matches() {
        for &(name, w, r, _) in STEPS {
            let matched = (0..ARCHETYPES)
                .filter(|&k| archetype(k).contains(&w) && archetype(k).contains(&r))
                .count();
            assert!(matched > 0, "{name} matches no archetype");
        }
    }

    #[test]
    fn the_model_changes_every_written_component() {
        let start = expected(0);
        let end = expected(CHECK_FRAMES);
        for &(name, w, r, _) in STEPS {
            let changed = start
                .iter()
                .zip(&end)
                .any(|(a, b)| a[r].is_some() && a[w] != b[w]);
            assert!(changed, "{name} changes nothing");
        }
    }

    #[test]
    fn ours_matches_the_model() {
        let mut case = crate::ours::nested_sets();
        case.run_batch(3);
        case.verify();
    }
}
