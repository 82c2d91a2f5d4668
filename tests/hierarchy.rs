//! Relationships and the parent/child hierarchy: both ends stay in step
//! whatever path changes them, linked despawn, the spawning API, the
//! bundles and the traversals.

use std::panic::{catch_unwind, AssertUnwindSafe};

use ecs::prelude::*;
use ecs::relationship::Relationship;
use ecs::world::DeferredWorld;

#[derive(Component, Debug, PartialEq)]
struct Tag(u32);

/// Every `ChildOf` is listed exactly once in its (live) parent's
/// `Children`, and every listed child points back.
fn check(world: &mut World) {
    let pairs: Vec<(Entity, Entity)> = {
        let mut q = world.query::<(Entity, &ChildOf)>();
        q.iter(world).map(|(e, c)| (e, c.parent())).collect()
    };
    for (child, parent) in pairs {
        let list = world
            .get::<Children>(parent)
            .unwrap_or_else(|| panic!("{parent:?}, parent of {child:?}, has no Children"));
        assert_eq!(
            list.iter().filter(|&e| e == child).count(),
            1,
            "{child:?} in {parent:?}"
        );
    }
    let lists: Vec<(Entity, Vec<Entity>)> = {
        let mut q = world.query::<(Entity, &Children)>();
        q.iter(world).map(|(e, c)| (e, c.to_vec())).collect()
    };
    for (parent, children) in lists {
        assert!(!children.is_empty(), "{parent:?} keeps an empty Children");
        for child in children {
            assert_eq!(
                world.get::<ChildOf>(child).map(ChildOf::parent),
                Some(parent)
            );
        }
    }
}

fn kids(world: &World, parent: Entity) -> Vec<Entity> {
    world
        .get::<Children>(parent)
        .map(|c| c.to_vec())
        .unwrap_or_default()
}

#[test]
fn insert_replace_remove_take_and_despawn_keep_both_ends_in_step() {
    let mut world = World::new();
    let a = world.spawn_empty().id();
    let b = world.spawn_empty().id();
    let c = world.spawn(ChildOf(a)).id();
    let d = world.spawn(ChildOf(a)).id();
    check(&mut world);
    assert_eq!(kids(&world, a), [c, d]);
    world.entity_mut(c).insert(ChildOf(b));
    check(&mut world);
    assert_eq!(kids(&world, a), [d]);
    assert_eq!(kids(&world, b), [c]);
    world.entity_mut(d).remove::<ChildOf>();
    check(&mut world);
    assert!(world.get::<Children>(a).is_none());
    assert_eq!(world.entity_mut(c).take::<ChildOf>(), Some(ChildOf(b)));
    check(&mut world);
    assert!(world.get::<Children>(b).is_none());
    world.entity_mut(c).insert(ChildOf(a));
    world.entity_mut(d).insert(ChildOf(a));
    let taken = world.entity_mut(a).take::<Children>().unwrap();
    assert_eq!(&*taken, &[c, d]);
    check(&mut world);
    assert!(world.get::<ChildOf>(c).is_none());
    world.entity_mut(c).insert(ChildOf(a));
    world.despawn(c);
    check(&mut world);
    assert!(world.get::<Children>(a).is_none());
}

#[test]
fn commands_keep_both_ends_in_step() {
    let mut world = World::new();
    let a = world.spawn_empty().id();
    let mut deferred = DeferredWorld::from(&mut world);
    let mut commands = deferred.commands();
    let c = commands.spawn(ChildOf(a)).id();
    let d = commands.spawn_empty().id();
    commands.entity(d).insert(ChildOf(a));
    commands.entity(c).remove::<ChildOf>();
    world.flush();
    check(&mut world);
    assert_eq!(kids(&world, a), [d]);
    DeferredWorld::from(&mut world)
        .commands()
        .entity(a)
        .despawn();
    world.flush();
    check(&mut world);
    assert!(world.get_entity(d).is_err());
    assert!(world.get_entity(c).is_ok());
}

#[test]
fn despawning_a_deep_chain_is_iterative() {
    let mut world = World::new();
    let root = world.spawn_empty().id();
    let mut last = root;
    // Deep enough natively to overflow a recursive despawn; interpreted,
    // a shorter chain exercises the same code.
    let depth = if cfg!(miri) { 200 } else { 100_000 };
    for _ in 0..depth {
        last = world.spawn(ChildOf(last)).id();
    }
    assert_eq!(world.entity_count(), depth + 1);
    world.despawn(root);
    assert_eq!(world.entity_count(), 0);
    assert!(world.get_entity(last).is_err());
}

#[test]
fn children_keep_insertion_order_across_moves() {
    let mut world = World::new();
    let p = world.spawn_empty().id();
    let q = world.spawn_empty().id();
    let es: Vec<Entity> = (0..4).map(|_| world.spawn_empty().id()).collect();
    world.entity_mut(p).add_children(&es);
    assert_eq!(kids(&world, p), es);
    world.entity_mut(q).add_child(es[1]);
    assert_eq!(kids(&world, p), [es[0], es[2], es[3]]);
    world.entity_mut(p).add_child(es[1]);
    assert_eq!(kids(&world, p), [es[0], es[2], es[3], es[1]]);
    assert!(world.get::<Children>(q).is_none());
    world.entity_mut(p).insert_child(0, es[3]);
    assert_eq!(kids(&world, p), [es[3], es[0], es[2], es[1]]);
    world.entity_mut(p).insert_children(1, &[es[1], q]);
    assert_eq!(kids(&world, p), [es[3], es[1], q, es[0], es[2]]);
    check(&mut world);
}

#[test]
fn world_spawning_api() {
    let mut world = World::new();
    let mut spawned = Vec::new();
    let p = world
        .spawn(Tag(0))
        .with_children(|s| {
            assert_eq!(s.target_entity(), s.target_entity());
            spawned.push(s.spawn(Tag(1)).id());
            spawned.push(s.spawn_empty().id());
        })
        .with_child(Tag(2))
        .with_related::<ChildOf>(Tag(3))
        .id();
    assert_eq!(kids(&world, p).len(), 4);
    assert_eq!(&kids(&world, p)[..2], &spawned[..]);
    let x = world.spawn_empty().id();
    world.entity_mut(p).detach_child(spawned[0]);
    world.entity_mut(p).detach_children(&[spawned[1], x]);
    assert_eq!(kids(&world, p).len(), 2);
    world.entity_mut(p).replace_children(&[x, spawned[0], x]);
    assert_eq!(kids(&world, p), [x, spawned[0]]);
    check(&mut world);
    world.entity_mut(p).despawn_children();
    assert!(world.get_entity(x).is_err());
    world.entity_mut(p).with_child(Tag(9)).detach_all_children();
    assert!(world.get::<Children>(p).is_none());
    check(&mut world);
}

#[test]
fn commands_spawning_api() {
    let mut world = World::new();
    let other = world.spawn_empty().id();
    let mut deferred = DeferredWorld::from(&mut world);
    let mut commands = deferred.commands();
    let p = commands
        .spawn(Tag(0))
        .with_children(|s| {
            s.spawn(Tag(1));
            s.spawn_empty();
        })
        .with_child(Tag(2))
        .add_child(other)
        .id();
    world.flush();
    assert_eq!(kids(&world, p).len(), 4);
    assert_eq!(kids(&world, p)[3], other);
    DeferredWorld::from(&mut world)
        .commands()
        .entity(p)
        .insert_child(0, other);
    world.flush();
    assert_eq!(kids(&world, p)[0], other);
    DeferredWorld::from(&mut world)
        .commands()
        .entity(p)
        .detach_child(other);
    world.flush();
    assert_eq!(kids(&world, p).len(), 3);
    DeferredWorld::from(&mut world)
        .commands()
        .entity(p)
        .replace_children(&[other]);
    world.flush();
    assert_eq!(kids(&world, p), [other]);
    DeferredWorld::from(&mut world)
        .commands()
        .entity(p)
        .despawn_related::<Children>();
    world.flush();
    assert!(world.get_entity(other).is_err());
    check(&mut world);
}

#[test]
fn children_and_related_bundles() {
    let mut world = World::new();
    let p = world
        .spawn((
            Tag(0),
            children![Tag(1), (Tag(2), children![Tag(3), Tag(4), Tag(5), Tag(6)])],
        ))
        .id();
    let first = kids(&world, p);
    assert_eq!(first.len(), 2);
    assert_eq!(world.get::<Tag>(first[1]), Some(&Tag(2)));
    let grand: Vec<u32> = kids(&world, first[1])
        .iter()
        .map(|&e| world.get::<Tag>(e).unwrap().0)
        .collect();
    assert_eq!(grand, [3, 4, 5, 6]);
    let q = world
        .spawn(related!(Children[Tag(7)]))
        .insert(Children::spawn((
            SpawnWith(|s: &mut ChildSpawner| {
                s.spawn(Tag(8));
            }),
            WithOneRelated(first[0]),
        )))
        .id();
    assert_eq!(kids(&world, q).len(), 3);
    assert_eq!(kids(&world, q)[2], first[0]);
    let mut deferred = DeferredWorld::from(&mut world);
    let mut commands = deferred.commands();
    let r = commands.spawn(children![Tag(10), Tag(11)]).id();
    world.flush();
    assert_eq!(kids(&world, r).len(), 2);
    check(&mut world);
}

#[test]
fn traversals() {
    let mut world = World::new();
    // root ─ a ─ c
    //      │   └ d ─ e
    //      └ b
    let root = world.spawn_empty().id();
    let a = world.spawn(ChildOf(root)).id();
    let b = world.spawn(ChildOf(root)).id();
    let c = world.spawn(ChildOf(a)).id();
    let d = world.spawn(ChildOf(a)).id();
    let e = world.spawn(ChildOf(d)).id();
    let out = world
        .run_system_once(
            move |children: Query<&Children>,
                  parents: Query<&ChildOf>,
                  both: Query<(Option<&ChildOf>, Option<&Children>)>| {
                (
                    parents.iter_ancestors(e).collect::<Vec<_>>(),
                    children.iter_descendants(root).collect::<Vec<_>>(),
                    children
                        .iter_descendants_depth_first(root)
                        .collect::<Vec<_>>(),
                    parents.root_ancestor(e),
                    children.iter_leaves(root).collect::<Vec<_>>(),
                    both.iter_siblings(c).collect::<Vec<_>>(),
                    parents.related(c),
                )
            },
        )
        .unwrap();
    assert_eq!(out.0, [d, a, root]);
    assert_eq!(out.1, [a, b, c, d, e]);
    assert_eq!(out.2, [a, c, d, e, b]);
    assert_eq!(out.3, root);
    assert_eq!(out.4, [c, e, b]);
    assert_eq!(out.5, [d]);
    assert_eq!(out.6, Some(a));
}

#[derive(Component)]
#[relationship(relationship_target = Followers)]
struct Follows {
    #[relationship]
    leader: Entity,
    since: u32,
}

#[derive(Component)]
#[relationship_target(relationship = Follows)]
struct Followers(Vec<Entity>);

#[derive(Component)]
#[relationship(relationship_target = Rider, allow_self_referential)]
struct Rides(Entity);

#[derive(Component)]
#[relationship_target(relationship = Rides, linked_spawn)]
struct Rider(Entity);

#[test]
fn custom_relationships_through_the_derive() {
    let mut world = World::new();
    let leader = world.spawn_empty().id();
    let fan = world.spawn(Follows { leader, since: 3 }).id();
    assert_eq!(world.get::<Followers>(leader).unwrap().0, [fan]);
    assert_eq!(<Follows as Relationship>::from(leader).since, 0);
    world.despawn(leader);
    // Not linked: the follower stays, without its relationship.
    assert!(world.get::<Follows>(fan).is_none());

    // One-to-one, linked, self allowed.
    let horse = world.spawn_empty().id();
    let r1 = world.spawn(Rides(horse)).id();
    let r2 = world.spawn(Rides(horse)).id();
    assert_eq!(world.get::<Rider>(horse).unwrap().0, r2);
    assert!(world.get::<Rides>(r1).is_none());
    let me = world.spawn_empty().id();
    world.entity_mut(me).insert(Rides(me));
    assert_eq!(world.get::<Rider>(me).unwrap().0, me);
    world.despawn(horse);
    assert!(world.get_entity(r2).is_err());
    assert!(world.get_entity(r1).is_ok());
}

#[derive(Resource, Default)]
struct Armed(bool);

#[test]
fn a_panicking_observer_during_a_relationship_change_leaves_the_world_consistent() {
    let mut world = World::new();
    world.insert_resource(Armed(true));
    world.add_observer(|_: On<Insert<ChildOf>>, armed: Res<Armed>| {
        if armed.0 {
            panic!("observer failed");
        }
    });
    let p = world.spawn_empty().id();
    let c = world.spawn_empty().id();
    let result = catch_unwind(AssertUnwindSafe(|| {
        world.entity_mut(c).insert(ChildOf(p));
    }));
    assert!(result.is_err());
    world.flush();
    check(&mut world);
    world.resource_mut::<Armed>().0 = false;
    world.entity_mut(c).insert(ChildOf(p));
    world.resource_mut::<Armed>().0 = true;
    let d = world.spawn_empty().id();
    let result = catch_unwind(AssertUnwindSafe(|| {
        world.entity_mut(d).insert(ChildOf(p));
    }));
    assert!(result.is_err());
    check(&mut world);
    assert_eq!(kids(&world, p), [c, d]);
}

#[test]
fn bad_input_is_refused() {
    let mut world = World::new();
    let e = world.spawn_empty().id();
    world.entity_mut(e).insert(ChildOf(e));
    assert!(world.get::<ChildOf>(e).is_none());
    assert!(world.get::<Children>(e).is_none());
    let gone = world.spawn_empty().id();
    world.despawn(gone);
    let orphan = world.spawn((Tag(1), ChildOf(gone))).id();
    assert!(world.get::<ChildOf>(orphan).is_none());
    assert_eq!(world.get::<Tag>(orphan), Some(&Tag(1)));
    world.entity_mut(e).add_child(e);
    assert!(world.get::<Children>(e).is_none());
    check(&mut world);
}

#[test]
fn a_parent_that_would_close_a_cycle_is_refused() {
    let mut world = World::new();
    // a <- b <- c <- d, and x beside them.
    let a = world.spawn(Tag(0)).id();
    let b = world.spawn(ChildOf(a)).id();
    let c = world.spawn(ChildOf(b)).id();
    let d = world.spawn(ChildOf(c)).id();
    let x = world.spawn_empty().id();

    // Two-entity cycle: a under its own child.
    world.entity_mut(a).insert(ChildOf(b));
    assert!(world.get::<ChildOf>(a).is_none());
    assert_eq!(kids(&world, a), vec![b]);
    check(&mut world);

    // Long cycle: a under its deepest descendant.
    world.entity_mut(a).insert(ChildOf(d));
    assert!(world.get::<ChildOf>(a).is_none());
    assert!(world.get::<Children>(d).is_none());
    check(&mut world);

    // Re-parenting a middle node under its own descendant drops its old
    // parent too (as a self-parent does) and leaves the rest in place.
    world.entity_mut(b).insert(ChildOf(d));
    assert!(world.get::<ChildOf>(b).is_none());
    assert!(world.get::<Children>(a).is_none());
    assert_eq!(kids(&world, b), vec![c]);
    assert_eq!(world.get::<ChildOf>(d).map(ChildOf::parent), Some(c));
    check(&mut world);

    // Through commands, and through `add_child` on the would-be child.
    world.commands().entity(b).insert(ChildOf(c));
    world.flush();
    assert!(world.get::<ChildOf>(b).is_none());
    world.entity_mut(d).add_child(b);
    assert!(world.get::<ChildOf>(b).is_none());
    assert!(world.get::<Children>(d).is_none());
    check(&mut world);

    // Moves that close no cycle still go through, subtrees included.
    world.entity_mut(b).insert(ChildOf(x));
    world.entity_mut(x).insert(ChildOf(a));
    assert_eq!(world.get::<ChildOf>(b).map(ChildOf::parent), Some(x));
    assert_eq!(world.get::<ChildOf>(x).map(ChildOf::parent), Some(a));
    let mut ancestors = world.query::<&ChildOf>();
    let chain: Vec<Entity> = {
        let mut chain = vec![d];
        let mut e = d;
        while let Some(parent) = ancestors.get(&world, e).ok().map(ChildOf::parent) {
            chain.push(parent);
            e = parent;
        }
        chain
    };
    assert_eq!(chain, vec![d, c, b, x, a]);
    check(&mut world);
}

#[test]
fn adding_a_child_it_already_has_moves_it_to_the_end_as_an_insert_does() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let a = world.spawn(ChildOf(parent)).id();
    let b = world.spawn(ChildOf(parent)).id();
    let c = world.spawn(ChildOf(parent)).id();
    let children = |world: &World| world.get::<Children>(parent).unwrap().to_vec();
    assert_eq!(children(&world), [a, b, c]);
    world.entity_mut(parent).add_child(a);
    assert_eq!(children(&world), [b, c, a]);
    world.entity_mut(b).insert(ChildOf(parent));
    assert_eq!(children(&world), [c, a, b]);
    world.entity_mut(parent).add_children(&[c]);
    assert_eq!(children(&world), [a, b, c]);
    for e in [a, b, c] {
        assert_eq!(world.get::<ChildOf>(e), Some(&ChildOf(parent)));
    }
}

#[test]
fn replacing_children_by_difference_checks_the_difference() {
    let mut world = World::new();
    let [a, b, c, d] = [(); 4].map(|_| world.spawn_empty().id());
    let parent = world.spawn_empty().id();
    world.entity_mut(parent).add_children(&[a, b]);
    world
        .entity_mut(parent)
        .replace_children_with_difference(&[a], &[b, c], &[c]);
    assert_eq!(world.get::<Children>(parent).unwrap().to_vec(), [b, c]);
    assert!(world.get::<ChildOf>(a).is_none());
    assert_eq!(world.get::<ChildOf>(c).map(|c| c.parent()), Some(parent));

    // Each broken invariant panics naming the slices, and changes nothing.
    type Case<'a> = (&'a [Entity], &'a [Entity], &'a [Entity], &'a str);
    let cases: [Case; 5] = [
        (&[], &[b, b, c], &[], "repeats"),
        (&[b], &[b, c], &[], "shares"),
        (&[], &[b, c], &[d], "subset"),
        (&[], &[b, c, d], &[c, d], "already related"),
        (&[], &[b, c, d], &[], "without"),
    ];
    for (unrelate, relate, newly, expected) in cases {
        let message = catch_unwind(AssertUnwindSafe(|| {
            world
                .entity_mut(parent)
                .replace_children_with_difference(unrelate, relate, newly);
        }))
        .expect_err("a broken invariant panics");
        let message = message
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default();
        assert!(message.contains(expected), "{expected}: {message}");
        assert_eq!(world.get::<Children>(parent).unwrap().to_vec(), [b, c]);
    }

    // Through commands.
    let mut queue = ecs::world::CommandQueue::default();
    Commands::new(&mut queue, &world)
        .entity(parent)
        .replace_children_with_difference(&[b, c], &[d], &[d]);
    queue.apply(&mut world);
    assert_eq!(world.get::<Children>(parent).unwrap().to_vec(), [d]);
    assert!(world.get::<ChildOf>(b).is_none() && world.get::<ChildOf>(c).is_none());
}

#[test]
fn a_cycle_made_within_one_command_is_refused() {
    // Inside a command the first links' `Children` are still queued when
    // the last `ChildOf` is inserted; the cycle is caught when the links
    // are made.
    let mut world = World::new();
    let a = world.spawn_empty().id();
    let b = world.spawn_empty().id();
    let c = world.spawn_empty().id();
    world.commands().queue(move |w: &mut World| {
        w.entity_mut(b).insert(ChildOf(a));
        w.entity_mut(c).insert(ChildOf(b));
        w.entity_mut(a).insert(ChildOf(c));
    });
    world.flush();
    assert_eq!(world.get::<ChildOf>(b).map(ChildOf::parent), Some(a));
    assert_eq!(world.get::<ChildOf>(c).map(ChildOf::parent), Some(b));
    assert!(
        world.get::<ChildOf>(a).is_none(),
        "a under its own grandchild"
    );
    check(&mut world);

    // A parent with children of its own already: the in-place link is the
    // one queued last here.
    let p = world.spawn_empty().id();
    let q = world.spawn(ChildOf(p)).id();
    let r = world.spawn_empty().id();
    world.commands().queue(move |w: &mut World| {
        w.entity_mut(r).insert(ChildOf(q));
        w.entity_mut(p).insert(ChildOf(r));
    });
    world.flush();
    assert_eq!(world.get::<ChildOf>(q).map(ChildOf::parent), Some(p));
    let (pr, rq) = (
        world.get::<ChildOf>(p).map(ChildOf::parent),
        world.get::<ChildOf>(r).map(ChildOf::parent),
    );
    assert!(pr.is_none() || rq.is_none(), "p under r under q under p");
    check(&mut world);
}

/// A link refused for closing a cycle stays on its entity until the
/// command removing it runs; a link made meanwhile does not walk through
/// it, so it is not taken for a cycle itself.
#[test]
fn a_refused_link_does_not_make_another_look_like_a_cycle() {
    let mut world = World::new();
    let (a, b, c) = (
        world.spawn_empty().id(),
        world.spawn_empty().id(),
        world.spawn_empty().id(),
    );
    // `a` and `c` already have children, so their links are checked.
    world.spawn(ChildOf(a));
    world.spawn(ChildOf(c));
    world.commands().queue(move |w: &mut World| {
        // Recorded at once: `a` has a list.
        w.entity_mut(b).insert(ChildOf(a));
        // Queued: `b` has no list yet.
        w.entity_mut(c).insert(ChildOf(b));
        // Closes a -> c -> b -> a: refused.
        w.entity_mut(a).insert(ChildOf(c));
    });
    world.flush();
    assert_eq!(world.get::<ChildOf>(b).map(ChildOf::parent), Some(a));
    assert_eq!(world.get::<ChildOf>(c).map(ChildOf::parent), Some(b));
    assert!(world.get::<ChildOf>(a).is_none());
    check(&mut world);
    world.check_integrity().unwrap();
    // The refusal is forgotten once removed: `a` can go under another.
    let d = world.spawn_empty().id();
    world.entity_mut(a).insert(ChildOf(d));
    assert_eq!(kids(&world, d), [a]);
    check(&mut world);
}

/// Where [`a_panic_anywhere_in_a_relationship_change_leaves_both_ends_in_step`]
/// makes user code panic.
#[derive(Resource, Clone, Copy, PartialEq, Debug)]
enum Trap {
    Off,
    /// The `on_add` / `on_discard` hook of a component beside `ChildOf`.
    SiblingHook,
    Add,
    Insert,
    Discard,
    Remove,
    Despawn,
}

#[derive(Component)]
#[component(on_add = fuse_hook, on_discard = fuse_hook)]
struct Fuse;

fn fuse_hook(world: DeferredWorld, _: ecs::lifecycle::HookContext) {
    if *world.resource::<Trap>() == Trap::SiblingHook {
        panic!("sibling hook");
    }
}

fn trap_world() -> World {
    fn arm(trap: Trap) -> impl Fn(Res<Trap>) {
        move |armed: Res<Trap>| {
            if *armed == trap {
                panic!("{trap:?} observer");
            }
        }
    }
    let mut world = World::new();
    world.insert_resource(Trap::Off);
    let add = arm(Trap::Add);
    world.add_observer(move |_: On<Add<ChildOf>>, armed: Res<Trap>| add(armed));
    let insert = arm(Trap::Insert);
    world.add_observer(move |_: On<Insert<ChildOf>>, armed: Res<Trap>| insert(armed));
    let discard = arm(Trap::Discard);
    world.add_observer(move |_: On<Discard<ChildOf>>, armed: Res<Trap>| discard(armed));
    let remove = arm(Trap::Remove);
    world.add_observer(move |_: On<Remove<ChildOf>>, armed: Res<Trap>| remove(armed));
    let despawn = arm(Trap::Despawn);
    world.add_observer(move |_: On<Despawn<ChildOf>>, armed: Res<Trap>| despawn(armed));
    world
}

/// A hook or observer that panics during an operation on `ChildOf` does
/// not stop the operation: once the panic is caught and the queued
/// commands applied, every `ChildOf` is listed in its parent's `Children`
/// and every listed child points back, whichever user code panicked.
#[test]
fn a_panic_anywhere_in_a_relationship_change_leaves_both_ends_in_step() {
    type Op = fn(&mut World, Entity, Entity, Entity);
    let ops: [(&str, Op); 14] = [
        ("spawn a child", |w, p, _, _| {
            w.spawn((ChildOf(p), Fuse));
        }),
        ("adopt", |w, p, _, x| {
            w.entity_mut(x).insert((ChildOf(p), Fuse));
        }),
        ("re-parent", |w, _, q, c| {
            w.entity_mut(c).insert(ChildOf(q));
        }),
        ("re-parent beside a hooked component", |w, _, q, c| {
            w.entity_mut(c).insert((ChildOf(q), Fuse));
        }),
        ("insert the same parent", |w, p, _, c| {
            w.entity_mut(c).insert(ChildOf(p));
        }),
        ("remove", |w, _, _, c| {
            w.entity_mut(c).remove::<ChildOf>();
        }),
        ("remove beside a hooked component", |w, _, _, c| {
            w.entity_mut(c).remove::<(ChildOf, Fuse)>();
        }),
        ("take", |w, _, _, c| {
            w.entity_mut(c).take::<ChildOf>();
        }),
        ("despawn the child", |w, _, _, c| {
            w.despawn(c);
        }),
        ("despawn the parent", |w, p, _, _| {
            w.despawn(p);
        }),
        ("despawn the parent through a command", |w, p, _, _| {
            w.commands().entity(p).despawn();
            w.flush();
        }),
        ("adopt through a command", |w, p, _, x| {
            w.commands().entity(x).insert((ChildOf(p), Fuse));
            w.flush();
        }),
        ("re-parent through a command", |w, _, q, c| {
            w.commands().entity(c).insert((ChildOf(q), Fuse));
            w.flush();
        }),
        ("remove through a command", |w, _, _, c| {
            w.commands().entity(c).remove::<(ChildOf, Fuse)>();
            w.flush();
        }),
    ];
    let all = [
        Trap::SiblingHook,
        Trap::Add,
        Trap::Insert,
        Trap::Discard,
        Trap::Remove,
        Trap::Despawn,
    ];
    // Under Miri, one panic point per path: insert, remove, despawn.
    let traps: &[Trap] = if cfg!(miri) {
        &[Trap::SiblingHook, Trap::Discard, Trap::Despawn]
    } else {
        &all
    };
    let mut failures = Vec::new();
    for (name, op) in ops {
        for &trap in traps {
            let mut world = trap_world();
            let (p, q) = (world.spawn_empty().id(), world.spawn_empty().id());
            let c = world.spawn((ChildOf(p), Fuse)).id();
            // A grandchild: a linked despawn goes two levels down.
            world.spawn((ChildOf(c), Fuse));
            let sibling = world.spawn(ChildOf(p)).id();
            let x = world.spawn(Tag(1)).id();
            *world.resource_mut::<Trap>() = trap;
            let _ = catch_unwind(AssertUnwindSafe(|| {
                op(
                    &mut world,
                    p,
                    q,
                    if name.starts_with("adopt") { x } else { c },
                )
            }));
            *world.resource_mut::<Trap>() = Trap::Off;
            world.flush();
            let result = catch_unwind(AssertUnwindSafe(|| {
                check(&mut world);
                if let Err(message) = world.check_integrity() {
                    panic!("{message}");
                }
                // The sibling left alone stays linked, unless its parent
                // went.
                if world.contains_entity(p) {
                    assert!(kids(&world, p).contains(&sibling), "sibling unlinked");
                } else {
                    assert!(
                        !world.contains_entity(sibling),
                        "sibling outlived its parent"
                    );
                }
            }));
            if let Err(payload) = result {
                let message = payload
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                failures.push(format!("{name} with a panicking {trap:?}: {message}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `check_integrity` checks the two ends of a derived relationship too,
/// not only `ChildOf`.
#[test]
fn check_integrity_checks_derived_relationships() {
    let mut world = World::new();
    let leader = world.spawn_empty().id();
    let fan = world.spawn(Follows { leader, since: 1 }).id();
    world.check_integrity().unwrap();
    let stranger = world.spawn_empty().id();
    world.get_mut::<Followers>(leader).unwrap().0.push(stranger);
    let message = world.check_integrity().unwrap_err();
    assert!(
        message.contains(&format!("{leader:?} lists {stranger:?}")) && message.contains("Follows"),
        "{message}"
    );
    world
        .get_mut::<Followers>(leader)
        .unwrap()
        .0
        .retain(|&e| e != stranger);
    world.check_integrity().unwrap();
    assert_eq!(world.get::<Followers>(leader).unwrap().0, [fan]);
}

/// The many-entity relationship methods go on past a panicking hook or
/// observer: every child is despawned, added or detached, then the first
/// panic goes on.
#[test]
fn relationship_methods_over_many_entities_go_past_a_panic() {
    for trap in [Trap::Despawn, Trap::Discard, Trap::Add, Trap::SiblingHook] {
        let mut world = trap_world();
        let p = world.spawn_empty().id();
        let kids_of_p: Vec<Entity> = (0..3)
            .map(|_| world.spawn((ChildOf(p), Fuse)).id())
            .collect();
        let loose: Vec<Entity> = (0..3).map(|_| world.spawn(Fuse).id()).collect();
        *world.resource_mut::<Trap>() = trap;
        // Replace the three children with the three loose entities.
        let replaced = catch_unwind(AssertUnwindSafe(|| {
            world.entity_mut(p).replace_children(&loose);
        }));
        *world.resource_mut::<Trap>() = Trap::Off;
        world.flush();
        check(&mut world);
        assert_eq!(kids(&world, p), loose, "replace_children, {trap:?}");
        assert!(
            kids_of_p.iter().all(|&k| world.get::<ChildOf>(k).is_none()),
            "replace_children, {trap:?}"
        );
        *world.resource_mut::<Trap>() = trap;
        let despawned = catch_unwind(AssertUnwindSafe(|| {
            world.entity_mut(p).despawn_related::<Children>();
        }));
        *world.resource_mut::<Trap>() = Trap::Off;
        world.flush();
        check(&mut world);
        assert!(
            loose.iter().all(|&k| !world.contains_entity(k)),
            "despawn_related, {trap:?}"
        );
        assert!(world.contains_entity(p) && world.get::<Children>(p).is_none());
        world.check_integrity().unwrap();
        // At least one of the two met the trap.
        assert!(
            replaced.is_err() || despawned.is_err(),
            "{trap:?} never fired"
        );
    }
}

/// A required component's constructor that panics stops the insert before
/// any hook runs: the entity keeps its parent, listed there.
#[test]
fn a_panicking_required_constructor_leaves_the_parent_untouched() {
    #[derive(Component)]
    struct Bad;
    fn make_bad() -> Bad {
        panic!("no Bad today");
    }
    #[derive(Component)]
    #[require(Bad = make_bad())]
    struct NeedsBad;

    let mut world = World::new();
    let (p, q) = (world.spawn_empty().id(), world.spawn_empty().id());
    let c = world.spawn(ChildOf(p)).id();
    let result = catch_unwind(AssertUnwindSafe(|| {
        world.entity_mut(c).insert((ChildOf(q), NeedsBad));
    }));
    assert!(result.is_err());
    world.flush();
    check(&mut world);
    assert_eq!(world.get::<ChildOf>(c).map(ChildOf::parent), Some(p));
    assert_eq!(kids(&world, p), [c]);
    world.check_integrity().unwrap();
}

/// Relating again an entity whose relationship has fields of its own keeps
/// them, and a `Remove` or `Discard` observer that panics meanwhile loses
/// nothing: the entity ends related to the new target, fields intact.
#[test]
fn relating_again_keeps_the_fields_even_past_a_panic() {
    #[derive(Resource)]
    struct Armed(bool);
    let mut world = World::new();
    world.insert_resource(Armed(false));
    world.add_observer(|_: On<Remove<Follows>>, armed: Res<Armed>| {
        if armed.0 {
            panic!("remove observer");
        }
    });
    world.add_observer(|_: On<Discard<Follows>>, armed: Res<Armed>| {
        if armed.0 {
            panic!("discard observer");
        }
    });
    let (l1, l2) = (world.spawn_empty().id(), world.spawn_empty().id());
    let s = world
        .spawn(Follows {
            leader: l1,
            since: 5,
        })
        .id();
    let t = world.spawn_empty().id();
    world.resource_mut::<Armed>().0 = true;
    let result = catch_unwind(AssertUnwindSafe(|| {
        world.entity_mut(l2).add_related::<Follows>(&[s, t]);
    }));
    world.resource_mut::<Armed>().0 = false;
    assert!(result.is_err(), "the discard observer of s panics");
    world.flush();
    let follows = world.get::<Follows>(s).expect("s still follows");
    assert_eq!((follows.leader, follows.since), (l2, 5));
    assert_eq!(world.get::<Followers>(l2).unwrap().0, [s, t]);
    assert!(world.get::<Followers>(l1).is_none());
    world.check_integrity().unwrap();
}

/// Replacing every related entity keeps the list's other fields: the list
/// is never emptied (and so never removed) on the way, as in bevy.
#[test]
fn replacing_the_related_entities_keeps_the_lists_data() {
    #[derive(Component)]
    #[relationship(relationship_target = Crew)]
    struct CrewOf(Entity);

    #[derive(Component)]
    #[relationship_target(relationship = CrewOf)]
    struct Crew {
        #[relationship]
        members: Vec<Entity>,
        morale: u8,
    }

    let mut world = World::new();
    let first = world.spawn_empty().id();
    let second = world.spawn_empty().id();
    let mut ship = world.spawn_empty();
    ship.add_related::<CrewOf>(&[first]);
    ship.get_mut::<Crew>().unwrap().morale = 42;

    ship.replace_related_with_difference::<CrewOf>(&[first], &[second], &[second]);
    assert_eq!(ship.get::<Crew>().unwrap().morale, 42);
    assert_eq!(ship.get::<Crew>().unwrap().members, [second]);

    ship.replace_related::<CrewOf>(&[first]);
    assert_eq!(ship.get::<Crew>().unwrap().morale, 42);
    assert_eq!(ship.get::<Crew>().unwrap().members, [first]);
    let ship = ship.id();
    assert!(world.get::<CrewOf>(second).is_none());
    assert_eq!(world.get::<CrewOf>(first).map(|c| c.0), Some(ship));
    world.check_integrity().unwrap();
}
