//! Many-to-many relations: `Targets` and `Sources` stay in step through
//! every operation and despawn of either side, the exclusive and symmetric
//! flavours, commands, lists taken and inserted by hand, the `Related`
//! parameter, panicking observers, and a model test over random operations.

mod common;

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

use common::integrity::integrity;
use common::panics::panic_text;
use ecs::prelude::*;
use ecs::relation::RelationError;
use ecs::world::DeferredWorld;
use proptest::prelude::*;

#[derive(Relation)]
struct Likes;

#[derive(Relation)]
#[relation(exclusive)]
struct MemberOf;

#[derive(Relation)]
#[relation(symmetric)]
struct FriendOf;

#[derive(Relation)]
#[relation(allow_self)]
struct Trusts;

#[derive(Component, Debug, PartialEq)]
struct Name(&'static str);

/// Runs `f` on the world's commands, then flushes them.
fn with_commands<T>(world: &mut World, f: impl FnOnce(&mut Commands) -> T) -> T {
    let mut deferred = DeferredWorld::from(&mut *world);
    let out = f(&mut deferred.commands());
    world.flush();
    out
}

fn spawn_n(world: &mut World, n: usize) -> Vec<Entity> {
    (0..n).map(|_| world.spawn_empty().id()).collect()
}

#[test]
fn relate_keeps_both_sides_in_order() {
    let mut world = World::new();
    let [a, b, x, y] = spawn_n(&mut world, 4)[..] else {
        unreachable!()
    };
    world
        .entity_mut(a)
        .relate::<Likes>(x)
        .unwrap()
        .relate::<Likes>(y)
        .unwrap();
    world.entity_mut(b).relate::<Likes>(x).unwrap();
    // Relating again changes nothing.
    world.entity_mut(a).relate::<Likes>(x).unwrap();
    assert_eq!(world.targets_of::<Likes>(a), &[x, y]);
    assert_eq!(world.targets_of::<Likes>(b), &[x]);
    assert_eq!(world.sources_of::<Likes>(x), &[a, b]);
    assert_eq!(world.sources_of::<Likes>(y), &[a]);
    assert_eq!(world.entity_mut(x).relation_sources::<Likes>(), &[a, b]);
    assert_eq!(world.entity_mut(a).relation_targets::<Likes>(), &[x, y]);
    assert!(world.targets_of::<Likes>(x).is_empty());
    // Another kind is separate.
    assert!(world.targets_of::<MemberOf>(a).is_empty());
    integrity(&world);

    assert!(world.unrelate::<Likes>(a, x));
    assert!(!world.unrelate::<Likes>(a, x));
    assert_eq!(world.targets_of::<Likes>(a), &[y]);
    assert_eq!(world.sources_of::<Likes>(x), &[b]);
    world.entity_mut(b).unrelate::<Likes>(x);
    assert!(world.get::<Sources<Likes>>(x).is_none());
    assert!(world.get::<Targets<Likes>>(b).is_none());
    world.entity_mut(a).unrelate_all::<Likes>();
    assert!(world.get::<Targets<Likes>>(a).is_none());
    assert!(world.get::<Sources<Likes>>(y).is_none());
    integrity(&world);
}

#[test]
fn has_any_relation_is_an_archetype_filter() {
    let mut world = World::new();
    let [a, b, c, x] = spawn_n(&mut world, 4)[..] else {
        unreachable!()
    };
    world.relate::<Likes>(a, x).unwrap();
    world.relate::<Likes>(b, x).unwrap();
    world.relate::<MemberOf>(c, x).unwrap();
    let mut sources = world.query_filtered::<Entity, With<Targets<Likes>>>();
    let mut found: Vec<Entity> = sources.iter(&world).collect();
    found.sort();
    assert_eq!(found, [a, b]);
    let mut targets = world.query_filtered::<Entity, With<Sources<Likes>>>();
    assert_eq!(targets.iter(&world).collect::<Vec<_>>(), [x]);
    let mut lonely =
        world.query_filtered::<Entity, (Without<Targets<Likes>>, Without<Sources<Likes>>)>();
    assert_eq!(lonely.iter(&world).collect::<Vec<_>>(), [c]);
}

#[test]
fn refusals_name_the_entities_and_change_nothing() {
    let mut world = World::new();
    let [a, gone] = spawn_n(&mut world, 2)[..] else {
        unreachable!()
    };
    world.despawn(gone);
    let error = world.entity_mut(a).relate::<Likes>(gone).unwrap_err();
    assert!(
        matches!(error, RelationError::MissingTarget { source, target, .. } if source == a && target == gone)
    );
    let text = error.to_string();
    assert!(
        text.contains(&format!("{a:?}"))
            && text.contains(&format!("{gone:?}"))
            && text.contains("Likes"),
        "{text}"
    );
    assert!(world.get::<Targets<Likes>>(a).is_none());

    let error = world.relate::<Likes>(a, a).unwrap_err();
    assert_eq!(
        error,
        RelationError::SelfRelation {
            relation: std::any::type_name::<Likes>(),
            entity: a
        }
    );
    assert!(error.to_string().contains("allow_self"), "{error}");
    assert!(world.get::<Targets<Likes>>(a).is_none());

    let error = world.relate::<Likes>(gone, a).unwrap_err();
    assert!(
        matches!(error, RelationError::MissingSource { .. }),
        "{error}"
    );
    assert!(world.get::<Sources<Likes>>(a).is_none());

    // A kind that allows it relates an entity to itself.
    world.relate::<Trusts>(a, a).unwrap();
    assert_eq!(world.targets_of::<Trusts>(a), &[a]);
    assert_eq!(world.sources_of::<Trusts>(a), &[a]);
    integrity(&world);
    world.entity_mut(a).unrelate_all::<Trusts>();
    assert!(world.get::<Sources<Trusts>>(a).is_none());
    world.relate::<Trusts>(a, a).unwrap();
    world.despawn(a);
    integrity(&world);
}

#[test]
fn despawning_either_side_unlinks_it() {
    let mut world = World::new();
    let [a, b, x, y] = spawn_n(&mut world, 4)[..] else {
        unreachable!()
    };
    for source in [a, b] {
        for target in [x, y] {
            world.relate::<Likes>(source, target).unwrap();
        }
    }
    world.despawn(x);
    assert_eq!(world.targets_of::<Likes>(a), &[y]);
    assert_eq!(world.targets_of::<Likes>(b), &[y]);
    integrity(&world);
    world.despawn(a);
    assert_eq!(world.sources_of::<Likes>(y), &[b]);
    integrity(&world);
    world.despawn(b);
    assert!(world.get::<Sources<Likes>>(y).is_none());
    integrity(&world);
    // The sources and targets themselves are not despawned.
    assert!(world.get_entity(y).is_ok());
}

#[test]
fn removing_a_side_by_hand_unlinks_it() {
    let mut world = World::new();
    let [a, b, x] = spawn_n(&mut world, 3)[..] else {
        unreachable!()
    };
    world.relate::<Likes>(a, x).unwrap();
    world.relate::<Likes>(b, x).unwrap();
    world.entity_mut(x).remove::<Sources<Likes>>();
    assert!(world.get::<Targets<Likes>>(a).is_none());
    assert!(world.get::<Targets<Likes>>(b).is_none());
    integrity(&world);
    world.relate::<Likes>(a, x).unwrap();
    world.entity_mut(a).remove::<Targets<Likes>>();
    assert!(world.get::<Sources<Likes>>(x).is_none());
    integrity(&world);
}

#[test]
fn a_taken_list_is_empty_and_unlinked() {
    let mut world = World::new();
    let [a, b, x, y] = spawn_n(&mut world, 4)[..] else {
        unreachable!()
    };
    world.relate::<Likes>(a, x).unwrap();
    world.relate::<Likes>(a, y).unwrap();
    let taken = world.entity_mut(a).take::<Targets<Likes>>().unwrap();
    assert!(taken.is_empty());
    assert!(world.get::<Sources<Likes>>(x).is_none());
    assert!(world.get::<Sources<Likes>>(y).is_none());
    integrity(&world);
    // Inserting it relates nothing, and it does not stay.
    world.entity_mut(b).insert(taken);
    assert!(world.get::<Targets<Likes>>(b).is_none());
    integrity(&world);

    world.relate::<Likes>(a, x).unwrap();
    world.relate::<Likes>(b, x).unwrap();
    let sources = world.entity_mut(x).take::<Sources<Likes>>().unwrap();
    assert!(sources.is_empty());
    assert!(world.get::<Targets<Likes>>(a).is_none());
    assert!(world.get::<Targets<Likes>>(b).is_none());
    // Inserted over a live list, it unlinks that list's entries.
    world.relate::<Likes>(a, y).unwrap();
    world.entity_mut(y).insert(sources);
    assert!(world.get::<Sources<Likes>>(y).is_none());
    assert!(world.get::<Targets<Likes>>(a).is_none());
    integrity(&world);
}

#[test]
fn exclusive_relating_again_moves_the_source() {
    let mut world = World::new();
    let [p, red, blue] = spawn_n(&mut world, 3)[..] else {
        unreachable!()
    };
    world.relate::<MemberOf>(p, red).unwrap();
    world.relate::<MemberOf>(p, blue).unwrap();
    assert_eq!(world.targets_of::<MemberOf>(p), &[blue]);
    assert!(world.get::<Sources<MemberOf>>(red).is_none());
    assert_eq!(world.sources_of::<MemberOf>(blue), &[p]);
    world.relate::<MemberOf>(p, blue).unwrap();
    assert_eq!(world.sources_of::<MemberOf>(blue), &[p]);
    integrity(&world);
    // Many sources may share the target.
    let q = world.spawn_empty().id();
    world.relate::<MemberOf>(q, blue).unwrap();
    assert_eq!(world.sources_of::<MemberOf>(blue), &[p, q]);
    integrity(&world);
}

#[test]
fn symmetric_relations_go_both_ways() {
    let mut world = World::new();
    let [a, b, c] = spawn_n(&mut world, 3)[..] else {
        unreachable!()
    };
    world.relate::<FriendOf>(a, b).unwrap();
    world.relate::<FriendOf>(c, a).unwrap();
    assert_eq!(world.targets_of::<FriendOf>(a), &[b, c]);
    assert_eq!(world.sources_of::<FriendOf>(a), &[b, c]);
    assert_eq!(world.targets_of::<FriendOf>(b), &[a]);
    assert_eq!(world.targets_of::<FriendOf>(c), &[a]);
    // Relating the other way is already done.
    world.relate::<FriendOf>(b, a).unwrap();
    assert_eq!(world.targets_of::<FriendOf>(b), &[a]);
    integrity(&world);
    // Unrelating either direction removes both.
    world.unrelate::<FriendOf>(b, a);
    assert!(world.get::<Targets<FriendOf>>(b).is_none());
    assert!(world.get::<Sources<FriendOf>>(b).is_none());
    assert_eq!(world.targets_of::<FriendOf>(a), &[c]);
    integrity(&world);
    // Removing a side by hand does too.
    world.relate::<FriendOf>(a, b).unwrap();
    world.entity_mut(a).remove::<Targets<FriendOf>>();
    assert!(world.get::<Targets<FriendOf>>(b).is_none());
    assert!(world.get::<Targets<FriendOf>>(c).is_none());
    assert!(world.get::<Sources<FriendOf>>(a).is_none());
    integrity(&world);
    world.relate::<FriendOf>(a, b).unwrap();
    world.relate::<FriendOf>(a, c).unwrap();
    world.entity_mut(b).remove::<Sources<FriendOf>>();
    assert_eq!(world.targets_of::<FriendOf>(a), &[c]);
    assert!(world.get::<Targets<FriendOf>>(b).is_none());
    integrity(&world);
    world.despawn(a);
    assert!(world.get::<Targets<FriendOf>>(c).is_none());
    assert!(world.get::<Sources<FriendOf>>(c).is_none());
    integrity(&world);
}

#[test]
fn commands_relate_and_unrelate() {
    let mut world = World::new();
    let [a, x, y] = spawn_n(&mut world, 3)[..] else {
        unreachable!()
    };
    let b = with_commands(&mut world, |commands| {
        commands.entity(a).relate::<Likes>(x).relate::<Likes>(y);
        commands.spawn_empty().relate::<Likes>(x).id()
    });
    assert_eq!(world.targets_of::<Likes>(a), &[x, y]);
    assert_eq!(world.sources_of::<Likes>(x), &[a, b]);
    with_commands(&mut world, |commands| {
        commands.entity(a).unrelate::<Likes>(x);
        commands.entity(b).unrelate_all::<Likes>();
    });
    assert_eq!(world.targets_of::<Likes>(a), &[y]);
    assert!(world.get::<Sources<Likes>>(x).is_none());
    integrity(&world);
}

#[test]
fn a_refused_command_reports_the_entities() {
    let mut world = World::new();
    let [a, gone] = spawn_n(&mut world, 2)[..] else {
        unreachable!()
    };
    world.despawn(gone);
    let panic = catch_unwind(AssertUnwindSafe(|| {
        with_commands(&mut world, |commands| {
            commands.entity(a).relate::<Likes>(gone);
        })
    }))
    .unwrap_err();
    let text = panic_text(&*panic);
    assert!(
        text.contains(&format!("{gone:?}")) && text.contains("does not exist"),
        "{text}"
    );
    assert!(world.get::<Targets<Likes>>(a).is_none());
    integrity(&world);
}

#[test]
fn related_yields_the_matching_sources_and_targets() {
    let mut world = World::new();
    let bob = world.spawn(Name("bob")).id();
    let alice = world.spawn(Name("alice")).id();
    let carol = world.spawn(Name("carol")).id();
    let nameless = world.spawn_empty().id();
    for fan in [alice, nameless, carol] {
        world.relate::<Likes>(fan, bob).unwrap();
    }
    world.relate::<Likes>(alice, carol).unwrap();

    let names = move |related: Related<Likes, &Name>| {
        let fans: Vec<&str> = related.iter_sources(bob).map(|n| n.0).collect();
        let liked: Vec<&str> = related.iter_targets(alice).map(|n| n.0).collect();
        assert_eq!(related.sources(bob), &[alice, nameless, carol]);
        assert_eq!(related.targets(alice), &[bob, carol]);
        assert!(related.sources(alice).is_empty());
        (fans, liked)
    };
    let (fans, liked) = world.run_system_once(names).unwrap();
    assert_eq!(fans, ["alice", "carol"]);
    assert_eq!(liked, ["bob", "carol"]);

    let shout = move |mut related: Related<Likes, &mut Name, Without<Sources<Likes>>>| {
        related.for_each_source_mut(bob, |mut name| name.0 = "fan");
        related.for_each_target_mut(alice, |mut name| name.0 = "idol");
    };
    world.run_system_once(shout).unwrap();
    // `carol` is a target, so the filter leaves her out.
    assert_eq!(world.get::<Name>(alice), Some(&Name("fan")));
    assert_eq!(world.get::<Name>(carol), Some(&Name("carol")));
    assert_eq!(world.get::<Name>(bob), Some(&Name("bob")));
}

/// Observers of both sides' lifecycle events that panic at the k-th call.
#[derive(Resource)]
struct PanicAt(usize);

static CALLS: AtomicUsize = AtomicUsize::new(0);

fn maybe_panic(world: &World) {
    let n = CALLS.fetch_add(1, Ordering::SeqCst) + 1;
    if world.get_resource::<PanicAt>().is_some_and(|at| at.0 == n) {
        panic!("injected panic at call {n}");
    }
}

fn observed_world() -> World {
    let mut world = World::new();
    world.add_observer(|_: On<Add<Targets<FriendOf>>>, w: &World| maybe_panic(w));
    world.add_observer(|_: On<Add<Sources<FriendOf>>>, w: &World| maybe_panic(w));
    world.add_observer(|_: On<Remove<Targets<FriendOf>>>, w: &World| maybe_panic(w));
    world.add_observer(|_: On<Remove<Sources<FriendOf>>>, w: &World| maybe_panic(w));
    world.add_observer(|_: On<Add<Targets<Likes>>>, w: &World| maybe_panic(w));
    world.add_observer(|_: On<Add<Sources<Likes>>>, w: &World| maybe_panic(w));
    world.add_observer(|_: On<Remove<Sources<Likes>>>, w: &World| maybe_panic(w));
    world
}

/// A script of relation operations, run with a panic injected at every
/// observer call in turn: after each caught panic and a flush, both sides
/// agree and the world keeps working.
#[test]
fn panicking_observers_leave_both_sides_agreeing() {
    fn script(world: &mut World, e: &[Entity]) {
        world.relate::<FriendOf>(e[0], e[1]).unwrap();
        world.relate::<FriendOf>(e[2], e[1]).unwrap();
        world.relate::<Likes>(e[0], e[3]).unwrap();
        world.relate::<Likes>(e[1], e[3]).unwrap();
        world.unrelate::<FriendOf>(e[1], e[0]);
        with_commands(world, |commands| {
            commands.entity(e[2]).relate::<Likes>(e[3]);
        });
        world.entity_mut(e[1]).unrelate_all::<FriendOf>();
        let taken = world.entity_mut(e[0]).take::<Targets<Likes>>();
        if let Some(taken) = taken {
            world.entity_mut(e[2]).insert(taken);
        }
        world.despawn(e[3]);
    }
    let mut world = observed_world();
    let e = spawn_n(&mut world, 4);
    CALLS.store(0, Ordering::SeqCst);
    script(&mut world, &e);
    let total = CALLS.load(Ordering::SeqCst);
    assert!(total > 8, "the script calls the observers ({total} calls)");
    for k in 1..=total {
        let mut world = observed_world();
        let e = spawn_n(&mut world, 4);
        world.insert_resource(PanicAt(k));
        CALLS.store(0, Ordering::SeqCst);
        let result = catch_unwind(AssertUnwindSafe(|| script(&mut world, &e)));
        assert!(result.is_err(), "call {k} of {total} panicked");
        let _ = catch_unwind(AssertUnwindSafe(|| world.flush()));
        if let Err(msg) = world.check_integrity() {
            panic!("after a panic at call {k}: {msg}");
        }
        // The world keeps working.
        world.remove_resource::<PanicAt>();
        world.relate::<FriendOf>(e[0], e[2]).unwrap();
        world.despawn(e[2]);
        integrity(&world);
    }
}

#[test]
fn the_integrity_check_catches_a_broken_child_of() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let other = world.spawn_empty().id();
    let child = world.spawn(ChildOf(parent)).id();
    integrity(&world);
    // Writing in place skips the hooks, breaking the link.
    let mut entity = world.entity_mut(child);
    // SAFETY: the contract keeps hooks in step, not memory sound: this
    // write skips `ChildOf`'s hooks on purpose, for the check to catch.
    unsafe { entity.get_mut_assume_mutable::<ChildOf>() }
        .unwrap()
        .0 = other;
    let message = world.check_integrity().unwrap_err();
    assert!(message.contains(&format!("{child:?}")), "{message}");
}

// ---- model test ------------------------------------------------------------------------

const SLOTS: usize = 6;

#[derive(Debug, Clone, Copy)]
enum Kind {
    Likes,
    MemberOf,
    FriendOf,
}

#[derive(Debug, Clone)]
enum Op {
    Relate(Kind, usize, usize),
    Unrelate(Kind, usize, usize),
    UnrelateAll(Kind, usize),
    RemoveSources(Kind, usize),
    Despawn(usize),
    ViaCommands(Kind, usize, usize),
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        Just(Kind::Likes),
        Just(Kind::MemberOf),
        Just(Kind::FriendOf)
    ]
}

fn op() -> impl Strategy<Value = Op> {
    let slot = 0..SLOTS;
    prop_oneof![
        6 => (kind(), slot.clone(), slot.clone()).prop_map(|(k, a, b)| Op::Relate(k, a, b)),
        2 => (kind(), slot.clone(), slot.clone()).prop_map(|(k, a, b)| Op::Unrelate(k, a, b)),
        1 => (kind(), slot.clone()).prop_map(|(k, a)| Op::UnrelateAll(k, a)),
        1 => (kind(), slot.clone()).prop_map(|(k, a)| Op::RemoveSources(k, a)),
        1 => slot.clone().prop_map(Op::Despawn),
        2 => (kind(), slot.clone(), slot).prop_map(|(k, a, b)| Op::ViaCommands(k, a, b)),
    ]
}

/// One relation kind as plain maps: each entity's targets and sources, in
/// order.
#[derive(Default)]
struct Model {
    targets: HashMap<Entity, Vec<Entity>>,
    sources: HashMap<Entity, Vec<Entity>>,
}

impl Model {
    fn has(&self, s: Entity, t: Entity) -> bool {
        self.targets.get(&s).is_some_and(|l| l.contains(&t))
    }

    fn add(&mut self, s: Entity, t: Entity) {
        self.targets.entry(s).or_default().push(t);
        self.sources.entry(t).or_default().push(s);
    }

    fn remove(&mut self, s: Entity, t: Entity) {
        for (map, owner, entry) in [(&mut self.targets, s, t), (&mut self.sources, t, s)] {
            if let Some(list) = map.get_mut(&owner) {
                list.retain(|&e| e != entry);
                if list.is_empty() {
                    map.remove(&owner);
                }
            }
        }
    }

    fn relate(&mut self, kind: Kind, s: Entity, t: Entity) {
        if s == t || self.has(s, t) {
            return;
        }
        if let Kind::MemberOf = kind {
            if let Some(&old) = self.targets.get(&s).and_then(|l| l.first()) {
                self.remove(s, old);
            }
        }
        self.add(s, t);
        if let Kind::FriendOf = kind {
            if !self.has(t, s) {
                self.add(t, s);
            }
        }
    }

    fn unrelate(&mut self, kind: Kind, s: Entity, t: Entity) {
        self.remove(s, t);
        if let Kind::FriendOf = kind {
            self.remove(t, s);
        }
    }

    fn unrelate_all(&mut self, kind: Kind, s: Entity) {
        for t in self.targets.get(&s).cloned().unwrap_or_default() {
            self.unrelate(kind, s, t);
        }
    }

    fn remove_sources(&mut self, kind: Kind, t: Entity) {
        for s in self.sources.get(&t).cloned().unwrap_or_default() {
            self.unrelate(kind, s, t);
        }
    }

    fn despawn(&mut self, e: Entity) {
        for t in self.targets.get(&e).cloned().unwrap_or_default() {
            self.remove(e, t);
        }
        for s in self.sources.get(&e).cloned().unwrap_or_default() {
            self.remove(s, e);
        }
    }
}

fn world_relate(world: &mut World, kind: Kind, s: Entity, t: Entity) {
    let result = match kind {
        Kind::Likes => world.relate::<Likes>(s, t),
        Kind::MemberOf => world.relate::<MemberOf>(s, t),
        Kind::FriendOf => world.relate::<FriendOf>(s, t),
    };
    assert_eq!(
        result.is_err(),
        s == t,
        "relate {kind:?} {s:?} -> {t:?}: {result:?}"
    );
}

fn world_apply(world: &mut World, op: &Op, e: &[Entity]) {
    macro_rules! each_kind {
        ($kind:expr, |$r:ident| $body:expr) => {
            match $kind {
                Kind::Likes => {
                    type $r = Likes;
                    $body
                }
                Kind::MemberOf => {
                    type $r = MemberOf;
                    $body
                }
                Kind::FriendOf => {
                    type $r = FriendOf;
                    $body
                }
            }
        };
    }
    match *op {
        Op::Relate(kind, a, b) => world_relate(world, kind, e[a], e[b]),
        Op::Unrelate(kind, a, b) => each_kind!(kind, |R| {
            world.entity_mut(e[a]).unrelate::<R>(e[b]);
        }),
        Op::UnrelateAll(kind, a) => each_kind!(kind, |R| {
            world.entity_mut(e[a]).unrelate_all::<R>();
        }),
        Op::RemoveSources(kind, a) => each_kind!(kind, |R| {
            world.entity_mut(e[a]).remove::<Sources<R>>();
        }),
        Op::Despawn(a) => {
            world.despawn(e[a]);
        }
        Op::ViaCommands(kind, a, b) => {
            if a != b {
                each_kind!(kind, |R| {
                    with_commands(world, |commands| {
                        commands.entity(e[a]).relate::<R>(e[b]);
                    });
                });
            }
        }
    }
}

fn model_apply(models: &mut [Model; 3], op: &Op, e: &[Entity]) {
    let model = |kind: Kind| kind as usize;
    match *op {
        Op::Relate(kind, a, b) => models[model(kind)].relate(kind, e[a], e[b]),
        Op::ViaCommands(kind, a, b) => models[model(kind)].relate(kind, e[a], e[b]),
        Op::Unrelate(kind, a, b) => models[model(kind)].unrelate(kind, e[a], e[b]),
        Op::UnrelateAll(kind, a) => models[model(kind)].unrelate_all(kind, e[a]),
        Op::RemoveSources(kind, a) => models[model(kind)].remove_sources(kind, e[a]),
        Op::Despawn(a) => models.iter_mut().for_each(|m| m.despawn(e[a])),
    }
}

fn compare(world: &World, models: &[Model; 3], e: &[Entity]) {
    for &entity in e {
        let listed = |m: &Model, targets: bool| {
            let map = if targets { &m.targets } else { &m.sources };
            map.get(&entity).cloned().unwrap_or_default()
        };
        assert_eq!(world.targets_of::<Likes>(entity), listed(&models[0], true));
        assert_eq!(world.sources_of::<Likes>(entity), listed(&models[0], false));
        assert_eq!(
            world.targets_of::<MemberOf>(entity),
            listed(&models[1], true)
        );
        assert_eq!(
            world.sources_of::<MemberOf>(entity),
            listed(&models[1], false)
        );
        assert_eq!(
            world.targets_of::<FriendOf>(entity),
            listed(&models[2], true)
        );
        assert_eq!(
            world.sources_of::<FriendOf>(entity),
            listed(&models[2], false)
        );
        // The components exist exactly when the lists are non-empty.
        assert_eq!(
            world.get::<Targets<Likes>>(entity).is_some(),
            !listed(&models[0], true).is_empty()
        );
        assert_eq!(
            world.get::<Sources<FriendOf>>(entity).is_some(),
            !listed(&models[2], false).is_empty()
        );
    }
    integrity(world);
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: if cfg!(miri) { 4 } else { 128 },
        // Deterministic, and no failure files (Miri has no file system).
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x7265_6c61_7465_7321),
        ..ProptestConfig::default()
    })]

    #[test]
    fn relations_match_a_map_model(ops in prop::collection::vec(op(), 1..80)) {
        let mut world = World::new();
        let mut e = spawn_n(&mut world, SLOTS);
        let mut models: [Model; 3] = Default::default();
        for op in &ops {
            world_apply(&mut world, op, &e);
            model_apply(&mut models, op, &e);
            if let Op::Despawn(a) = *op {
                e[a] = world.spawn_empty().id();
            }
            compare(&world, &models, &e);
        }
    }
}

#[test]
fn a_relate_abandoned_by_a_panicking_add_observer_leaves_no_empty_side() {
    let mut world = World::new();
    world.add_observer(|_: On<Add<Targets<Likes>>>| panic!("no new likes"));
    let (a, b) = (world.spawn_empty().id(), world.spawn_empty().id());
    assert!(catch_unwind(AssertUnwindSafe(|| world.relate::<Likes>(a, b))).is_err());
    world.flush();
    assert!(world.get::<Targets<Likes>>(a).is_none());
    assert!(world.get::<Sources<Likes>>(b).is_none());
    let mut with_targets = world.query_filtered::<Entity, With<Targets<Likes>>>();
    assert_eq!(with_targets.iter(&world).count(), 0);
    integrity(&world);
}

#[test]
fn unrelating_a_despawned_entity_through_commands_does_nothing() {
    let mut world = World::new();
    let a = world.spawn_empty().id();
    let b = world.spawn_empty().id();
    world.relate::<Likes>(a, b).unwrap();
    let mut commands = world.commands();
    commands.entity(a).despawn();
    commands.entity(a).unrelate_all::<Likes>();
    commands.entity(a).unrelate::<Likes>(b);
    world.flush();
    assert!(world.get_entity(a).is_err());
    assert!(world.sources_of::<Likes>(b).is_empty());
    world.check_integrity().unwrap();
}

#[test]
fn a_cloned_list_inserted_by_hand_is_emptied() {
    use ecs::relation::{Sources, Targets};
    let mut world = World::new();
    let a = world.spawn_empty().id();
    let x = world.spawn_empty().id();
    let c = world.spawn_empty().id();
    world.entity_mut(a).relate::<Likes>(x).unwrap();
    let targets = world.get::<Targets<Likes>>(a).unwrap().clone();
    let sources = world.get::<Sources<Likes>>(x).unwrap().clone();
    world.entity_mut(c).insert((targets, sources));
    world.flush();
    assert_eq!(world.targets_of::<Likes>(c), &[] as &[Entity]);
    assert_eq!(world.sources_of::<Likes>(c), &[] as &[Entity]);
    assert!(world.get::<Targets<Likes>>(c).is_none());
    assert!(world.get::<Sources<Likes>>(c).is_none());
    assert_eq!(world.targets_of::<Likes>(a), &[x]);
    assert_eq!(world.sources_of::<Likes>(x), &[a]);
    integrity(&world);
    world.check_integrity().unwrap();
}

/// Every entity holding `Targets<R>` or `Sources<R>` holds a non-empty
/// list: `With<Sources<R>>` means "is related".
fn assert_no_empty_side<R: Relation>(world: &mut World) {
    let mut holders = world.query_filtered::<Entity, Or<(With<Targets<R>>, With<Sources<R>>)>>();
    for entity in holders.iter(world) {
        let targets = world.get::<Targets<R>>(entity).map(|t| t.len());
        let sources = world.get::<Sources<R>>(entity).map(|s| s.len());
        assert!(
            targets != Some(0) && sources != Some(0),
            "entity {entity:?} holds an empty side (targets {targets:?}, sources {sources:?})"
        );
    }
}

/// `unrelate` whose removal observers panic still takes every emptied side
/// off, for a plain kind and for each side and event of a symmetric one.
#[test]
fn unrelating_past_a_panicking_observer_leaves_no_empty_side() {
    let mut world = World::new();
    world.add_observer(|_: On<Remove<Targets<Likes>>>| panic!("no unlikes"));
    let (a, b) = (world.spawn_empty().id(), world.spawn_empty().id());
    world.relate::<Likes>(a, b).unwrap();
    assert!(catch_unwind(AssertUnwindSafe(|| world.unrelate::<Likes>(a, b))).is_err());
    world.flush();
    integrity(&world);
    assert_no_empty_side::<Likes>(&mut world);

    for observer in 0..4 {
        let mut world = World::new();
        match observer {
            0 => world.add_observer(|_: On<Remove<Targets<FriendOf>>>| panic!("targets")),
            1 => world.add_observer(|_: On<Remove<Sources<FriendOf>>>| panic!("sources")),
            2 => world.add_observer(|_: On<Discard<Targets<FriendOf>>>| panic!("targets")),
            _ => world.add_observer(|_: On<Discard<Sources<FriendOf>>>| panic!("sources")),
        };
        let (a, b) = (world.spawn_empty().id(), world.spawn_empty().id());
        world.relate::<FriendOf>(a, b).unwrap();
        let outcome = catch_unwind(AssertUnwindSafe(|| world.unrelate::<FriendOf>(a, b)));
        assert!(outcome.is_err(), "observer {observer}");
        world.flush();
        integrity(&world);
        assert_no_empty_side::<FriendOf>(&mut world);
        assert!(world.targets_of::<FriendOf>(a).is_empty());
        assert!(world.targets_of::<FriendOf>(b).is_empty());
    }
}
