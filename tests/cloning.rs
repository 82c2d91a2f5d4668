//! Entity cloning: `EntityCloner` and its builders, the clone behaviors a
//! component declares, `clone_and_spawn` and friends on `EntityWorldMut`
//! and `EntityCommands`, entity mapping, linked (hierarchy) cloning, and a
//! `Clone` that panics midway.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};

use common::drop_log::{DropLog, Payload};
use common::integrity::integrity;
use common::panics::expect_panic;
use ecs::component::{ComponentCloneBehavior, ComponentDescriptor};
use ecs::entity::{ComponentCloneCtx, EntityCloner, EntityHashMap, MapEntities, SourceComponent};
use ecs::lifecycle::HookContext;
use ecs::prelude::*;
use ecs::world::{CommandQueue, DeferredWorld};

#[derive(Component, Clone, PartialEq, Debug)]
struct A(u32);

#[derive(Component, Clone, PartialEq, Debug)]
#[component(storage = "SparseSet")]
struct B(String);

/// Not `Clone`: skipped by cloning unless moved.
#[derive(Component, PartialEq, Debug)]
struct NotClone(u32);

#[derive(Component, Clone, PartialEq, Debug)]
#[component(clone_behavior = Ignore)]
struct Ignored(u32);

#[derive(Component, PartialEq, Debug)]
#[component(clone_behavior = Custom(double_clone))]
struct Doubled(u32);

fn double_clone(source: &SourceComponent, ctx: &mut ComponentCloneCtx) {
    let value = source.read::<Doubled>().unwrap().0;
    ctx.write_target_component(Doubled(value * 2));
}

#[derive(Component, Clone, PartialEq, Debug, Default)]
#[require(A(7))]
struct NeedsA;

#[test]
fn clone_entity_copies_clone_components_and_skips_others() {
    let mut world = World::new();
    let source = world
        .spawn((A(1), B("b".into()), NotClone(2), Ignored(3), Doubled(4)))
        .id();
    let target = world.spawn_empty().id();
    EntityCloner::build_opt_out(&mut world).clone_entity(source, target);
    assert_eq!(world.get::<A>(target), Some(&A(1)));
    assert_eq!(world.get::<B>(target), Some(&B("b".into())));
    assert_eq!(world.get::<NotClone>(target), None);
    assert_eq!(world.get::<Ignored>(target), None);
    assert_eq!(world.get::<Doubled>(target), Some(&Doubled(8)));
    // The source is untouched.
    assert_eq!(world.get::<NotClone>(source), Some(&NotClone(2)));
    assert_eq!(world.get::<Doubled>(source), Some(&Doubled(4)));
    integrity(&world);
}

#[test]
fn clone_behaviors_resolve_as_declared() {
    let mut world = World::new();
    let a = world.register_component::<A>();
    let not_clone = world.register_component::<NotClone>();
    let ignored = world.register_component::<Ignored>();
    let info = |id| {
        world
            .components()
            .get_info(id)
            .unwrap()
            .clone_behavior()
            .clone()
    };
    assert!(matches!(info(a), ComponentCloneBehavior::Custom(_)));
    assert!(matches!(info(not_clone), ComponentCloneBehavior::Default));
    assert!(matches!(info(ignored), ComponentCloneBehavior::Ignore));
    let default = ComponentCloneBehavior::global_default_fn();
    assert_eq!(
        ComponentCloneBehavior::Default.resolve(default) as usize,
        default as usize
    );
}

#[test]
fn spawn_clone_and_finished_cloner_are_reusable() {
    let mut world = World::new();
    let source = world.spawn((A(1), B("x".into()))).id();
    let mut builder = EntityCloner::build_opt_out(&mut world);
    builder.deny::<B>();
    let mut cloner = builder.finish();
    let first = cloner.spawn_clone(&mut world, source);
    let second = cloner.spawn_clone(&mut world, source);
    for e in [first, second] {
        assert_eq!(world.get::<A>(e), Some(&A(1)));
        assert_eq!(world.get::<B>(e), None);
    }
    assert_ne!(first, second);
    assert!(!cloner.linked_cloning());
}

#[test]
fn opt_out_deny_by_ids_and_required_by() {
    let mut world = World::new();
    let source = world.spawn((NeedsA, B("b".into()))).id();
    assert_eq!(world.get::<A>(source), Some(&A(7)));
    // Denying `A` denies `NeedsA`, which requires it.
    let target = world.spawn_empty().id();
    EntityCloner::build_opt_out(&mut world)
        .deny::<A>()
        .clone_entity(source, target);
    assert_eq!(world.get::<A>(target), None);
    assert_eq!(world.get::<NeedsA>(target), None);
    assert_eq!(world.get::<B>(target), Some(&B("b".into())));
    // Unless asked not to: `NeedsA` is cloned, and brings a fresh `A`.
    world.entity_mut(source).insert(A(1));
    let target = world.spawn_empty().id();
    EntityCloner::build_opt_out(&mut world)
        .without_required_by_components(|builder| {
            builder.deny::<A>();
        })
        .clone_entity(source, target);
    assert_eq!(world.get::<NeedsA>(target), Some(&NeedsA));
    assert_eq!(world.get::<A>(target), Some(&A(7)));
    // By ids: a `TypeId`, a `ComponentId`, or a list of them.
    let b = world.component_id::<B>().unwrap();
    let target = world.spawn_empty().id();
    EntityCloner::build_opt_out(&mut world)
        .deny_by_ids([b])
        .deny_by_ids(std::any::TypeId::of::<NeedsA>())
        .clone_entity(source, target);
    assert_eq!(world.get::<B>(target), None);
    assert_eq!(world.get::<NeedsA>(target), None);
    assert_eq!(world.get::<A>(target), Some(&A(1)));
}

#[test]
fn opt_in_allow_required_and_if_new() {
    let mut world = World::new();
    let source = world.spawn((NeedsA, B("b".into()))).id();
    world.entity_mut(source).insert(A(1));
    // Allowing `NeedsA` allows `A`, where the target lacks it.
    let target = world.spawn_empty().id();
    EntityCloner::build_opt_in(&mut world)
        .allow::<NeedsA>()
        .clone_entity(source, target);
    assert_eq!(world.get::<A>(target), Some(&A(1)));
    assert_eq!(world.get::<B>(target), None);
    let target = world.spawn(A(50)).id();
    EntityCloner::build_opt_in(&mut world)
        .allow::<NeedsA>()
        .clone_entity(source, target);
    assert_eq!(world.get::<A>(target), Some(&A(50)));
    // Without required components, `A` comes from `NeedsA`'s requirement.
    let target = world.spawn_empty().id();
    EntityCloner::build_opt_in(&mut world)
        .without_required_components(|builder| {
            builder.allow::<NeedsA>();
        })
        .clone_entity(source, target);
    assert_eq!(world.get::<A>(target), Some(&A(7)));
    // `allow_if_new` keeps the target's value; `allow` replaces it.
    let target = world.spawn((B("mine".into()), A(9))).id();
    EntityCloner::build_opt_in(&mut world)
        .allow_if_new::<B>()
        .allow::<A>()
        .clone_entity(source, target);
    assert_eq!(world.get::<B>(target), Some(&B("mine".into())));
    assert_eq!(world.get::<A>(target), Some(&A(1)));
    let b = world.component_id::<B>().unwrap();
    let target = world.spawn_empty().id();
    EntityCloner::build_opt_in(&mut world)
        .allow_by_ids(b)
        .allow_by_ids_if_new([std::any::TypeId::of::<A>()])
        .clone_entity(source, target);
    assert_eq!(world.get::<B>(target), Some(&B("b".into())));
    assert_eq!(world.get::<A>(target), Some(&A(1)));
    integrity(&world);
}

#[test]
fn overrides_and_default_fn() {
    fn clone_not_clone(source: &SourceComponent, ctx: &mut ComponentCloneCtx) {
        let value = source.read::<NotClone>().unwrap().0;
        ctx.write_target_component(NotClone(value + 100));
    }
    let mut world = World::new();
    let source = world.spawn((A(1), NotClone(2))).id();
    let target = world.spawn_empty().id();
    EntityCloner::build_opt_out(&mut world)
        .override_clone_behavior::<A>(ComponentCloneBehavior::Ignore)
        .with_default_clone_fn(clone_not_clone)
        .clone_entity(source, target);
    assert_eq!(world.get::<A>(target), None);
    assert_eq!(world.get::<NotClone>(target), Some(&NotClone(102)));
    let target = world.spawn_empty().id();
    let a = world.component_id::<A>().unwrap();
    EntityCloner::build_opt_out(&mut world)
        .override_clone_behavior_with_id(a, ComponentCloneBehavior::Ignore)
        .remove_clone_behavior_override::<A>()
        .override_clone_behavior::<NotClone>(ComponentCloneBehavior::Custom(clone_not_clone))
        .remove_clone_behavior_override_with_id(a)
        .clone_entity(source, target);
    assert_eq!(world.get::<A>(target), Some(&A(1)));
    assert_eq!(world.get::<NotClone>(target), Some(&NotClone(102)));
}

#[test]
fn a_clone_fn_for_another_type_panics_naming_both() {
    let mut world = World::new();
    let source = world.spawn(A(1)).id();
    let target = world.spawn_empty().id();
    let msg = expect_panic(|| {
        EntityCloner::build_opt_out(&mut world)
            .override_clone_behavior::<A>(ComponentCloneBehavior::clone::<B>())
            .clone_entity(source, target);
    });
    assert!(
        msg.contains("cloning::A") && msg.contains("cloning::B"),
        "{msg}"
    );
    assert_eq!(world.get::<B>(target), None);
    integrity(&world);
}

#[test]
fn cloning_missing_entities_panics_naming_them() {
    let mut world = World::new();
    let live = world.spawn(A(1)).id();
    let dead = world.spawn_empty().id();
    world.despawn(dead);
    let msg = expect_panic(|| EntityCloner::default().clone_entity(&mut world, dead, live));
    assert!(msg.contains(&format!("{dead:?}")), "{msg}");
    let msg = expect_panic(|| EntityCloner::default().clone_entity(&mut world, live, dead));
    assert!(msg.contains(&format!("{dead:?}")), "{msg}");
    integrity(&world);
}

// ---- world, entity and command methods --------------------------------------------------

#[test]
fn entity_world_mut_methods() {
    let mut world = World::new();
    let source = world.spawn((A(1), B("b".into()), NotClone(3))).id();
    let copy = world.entity_mut(source).clone_and_spawn();
    assert_eq!(world.get::<A>(copy), Some(&A(1)));
    assert_eq!(world.get::<B>(copy), Some(&B("b".into())));
    let copy = world
        .entity_mut(source)
        .clone_and_spawn_with_opt_out(|builder| {
            builder.deny::<A>();
        });
    assert_eq!(world.get::<A>(copy), None);
    assert_eq!(world.get::<B>(copy), Some(&B("b".into())));
    let copy = world
        .entity_mut(source)
        .clone_and_spawn_with_opt_in(|builder| {
            builder.allow::<A>();
        });
    assert_eq!(world.get::<A>(copy), Some(&A(1)));
    assert_eq!(world.get::<B>(copy), None);

    let target = world.spawn_empty().id();
    world
        .entity_mut(source)
        .clone_with_opt_out(target, |builder| {
            builder.deny::<B>();
        })
        .clone_with_opt_in(target, |builder| {
            builder.allow::<B>();
        });
    assert_eq!(world.get::<A>(target), Some(&A(1)));
    assert_eq!(world.get::<B>(target), Some(&B("b".into())));

    let target = world.spawn_empty().id();
    world.entity_mut(source).clone_components::<(A, B)>(target);
    assert_eq!(world.get::<A>(target), Some(&A(1)));
    assert_eq!(world.get::<B>(target), Some(&B("b".into())));
    assert_eq!(world.get::<A>(source), Some(&A(1)));
    integrity(&world);
}

#[test]
fn move_components_moves_clone_and_non_clone_values() {
    let log = DropLog::default();
    #[derive(Component)]
    struct Owned(Payload);
    #[derive(Component)]
    #[component(storage = "SparseSet")]
    struct OwnedSparse(Payload);
    let mut world = World::new();
    let source = world
        .spawn((
            A(1),
            Owned(Payload::new(1, &log)),
            OwnedSparse(Payload::new(2, &log)),
            Ignored(5),
        ))
        .id();
    let target = world.spawn_empty().id();
    world
        .entity_mut(source)
        .move_components::<(A, Owned, OwnedSparse, Ignored)>(target);
    assert_eq!(world.get::<A>(target), Some(&A(1)));
    assert_eq!(world.get::<Owned>(target).map(|o| o.0.id), Some(1));
    assert_eq!(world.get::<OwnedSparse>(target).map(|o| o.0.id), Some(2));
    assert_eq!(world.get::<A>(source), None);
    assert!(world.get::<Owned>(source).is_none());
    assert!(world.get::<OwnedSparse>(source).is_none());
    // Ignored components stay where they are.
    assert_eq!(world.get::<Ignored>(source), Some(&Ignored(5)));
    assert_eq!(world.get::<Ignored>(target), None);
    // Nothing was dropped by the move.
    assert_eq!(log.count(), 0);
    integrity(&world);
    drop(world);
    log.assert_dropped_once(&[1, 2]);
}

#[test]
fn entity_commands_methods() {
    let mut world = World::new();
    let source = world.spawn((A(1), B("b".into()))).id();
    let target = world.spawn_empty().id();
    let moved_to = world.spawn_empty().id();
    let mut queue = CommandQueue::default();
    let (plain, opt_out, opt_in) = {
        let mut commands = Commands::new(&mut queue, &world);
        let mut entity = commands.entity(source);
        let plain = entity.clone_and_spawn().id();
        let opt_out = entity
            .clone_and_spawn_with_opt_out(|builder| {
                builder.deny::<B>();
            })
            .id();
        let opt_in = entity
            .clone_and_spawn_with_opt_in(|builder| {
                builder.allow::<B>();
            })
            .id();
        entity
            .clone_with_opt_out(target, |builder| {
                builder.deny::<A>();
            })
            .clone_with_opt_in(target, |builder| {
                builder.allow::<A>();
            })
            .clone_components::<A>(moved_to)
            .move_components::<B>(moved_to);
        (plain, opt_out, opt_in)
    };
    queue.apply(&mut world);
    assert_eq!(world.get::<A>(plain), Some(&A(1)));
    assert_eq!(world.get::<B>(plain), Some(&B("b".into())));
    assert_eq!(world.get::<B>(opt_out), None);
    assert_eq!(world.get::<A>(opt_out), Some(&A(1)));
    assert_eq!(world.get::<A>(opt_in), None);
    assert_eq!(world.get::<B>(opt_in), Some(&B("b".into())));
    assert_eq!(world.get::<A>(target), Some(&A(1)));
    assert_eq!(world.get::<B>(target), Some(&B("b".into())));
    assert_eq!(world.get::<A>(moved_to), Some(&A(1)));
    assert_eq!(world.get::<B>(moved_to), Some(&B("b".into())));
    assert_eq!(world.get::<B>(source), None);
    integrity(&world);
}

// ---- hooks ------------------------------------------------------------------------------

static ADDS: AtomicUsize = AtomicUsize::new(0);
static INSERTS: AtomicUsize = AtomicUsize::new(0);
static REMOVES: AtomicUsize = AtomicUsize::new(0);

#[derive(Component, Clone)]
#[component(on_add = count_add, on_insert = count_insert, on_remove = count_remove)]
struct Hooked;

fn count_add(_: DeferredWorld, _: HookContext) {
    ADDS.fetch_add(1, Ordering::SeqCst);
}
fn count_insert(_: DeferredWorld, _: HookContext) {
    INSERTS.fetch_add(1, Ordering::SeqCst);
}
fn count_remove(_: DeferredWorld, _: HookContext) {
    REMOVES.fetch_add(1, Ordering::SeqCst);
}

#[test]
fn hooks_and_observers_fire_on_the_clone_and_on_move() {
    let mut world = World::new();
    let source = world.spawn(Hooked).id();
    let (adds, inserts) = (ADDS.load(Ordering::SeqCst), INSERTS.load(Ordering::SeqCst));
    let observed = std::sync::Arc::new(AtomicUsize::new(0));
    let seen = observed.clone();
    world.add_observer(move |_: On<Add<Hooked>>| {
        seen.fetch_add(1, Ordering::SeqCst);
    });
    let copy = world.entity_mut(source).clone_and_spawn();
    assert!(world.get::<Hooked>(copy).is_some());
    assert_eq!(ADDS.load(Ordering::SeqCst), adds + 1);
    assert_eq!(INSERTS.load(Ordering::SeqCst), inserts + 1);
    assert_eq!(observed.load(Ordering::SeqCst), 1);
    let removes = REMOVES.load(Ordering::SeqCst);
    let target = world.spawn_empty().id();
    world.entity_mut(copy).move_components::<Hooked>(target);
    assert_eq!(REMOVES.load(Ordering::SeqCst), removes + 1);
    assert_eq!(ADDS.load(Ordering::SeqCst), adds + 2);
    assert_eq!(observed.load(Ordering::SeqCst), 2);
}

// ---- entity mapping ---------------------------------------------------------------------

#[derive(Component, Clone, Debug, PartialEq)]
struct Links {
    #[entities]
    friend: Entity,
    #[entities]
    others: Vec<Entity>,
    unmapped: Entity,
}

#[derive(Component, Clone, Debug, PartialEq)]
enum Target {
    Nobody,
    Someone(#[entities] Entity, u32),
    Named {
        #[entities]
        who: Option<Entity>,
    },
}

#[derive(Clone, Debug, PartialEq)]
struct Pair(Entity, Entity);

impl MapEntities for Pair {
    fn map_entities<E: EntityMapper>(&mut self, mapper: &mut E) {
        self.0.map_entities(mapper);
        self.1.map_entities(mapper);
    }
}

#[derive(Component, Clone, Debug, PartialEq)]
#[component(map_entities)]
struct OwnImpl(Pair);

impl MapEntities for OwnImpl {
    fn map_entities<E: EntityMapper>(&mut self, mapper: &mut E) {
        self.0.map_entities(mapper);
    }
}

#[test]
fn cloning_maps_marked_entities() {
    let mut world = World::new();
    let source = world.spawn_empty().id();
    let other = world.spawn_empty().id();
    world.entity_mut(source).insert((
        Links {
            friend: source,
            others: vec![source, other],
            unmapped: source,
        },
        Target::Someone(source, 3),
        OwnImpl(Pair(source, other)),
    ));
    let copy = world.entity_mut(source).clone_and_spawn();
    assert_eq!(
        world.get::<Links>(copy),
        Some(&Links {
            friend: copy,
            others: vec![copy, other],
            unmapped: source,
        })
    );
    assert_eq!(world.get::<Target>(copy), Some(&Target::Someone(copy, 3)));
    assert_eq!(
        world.get::<OwnImpl>(copy),
        Some(&OwnImpl(Pair(copy, other)))
    );

    let mut map = EntityHashMap::<Entity>::default();
    map.set_mapped(source, other);
    let mut named = Target::Named { who: Some(source) };
    Component::map_entities(&mut named, &mut map);
    assert_eq!(named, Target::Named { who: Some(other) });
    let mut nobody = Target::Nobody;
    Component::map_entities(&mut nobody, &mut map);
    assert_eq!(nobody, Target::Nobody);
}

#[test]
fn clone_entity_mapped_uses_the_given_mapper() {
    let mut world = World::new();
    let friend = world.spawn_empty().id();
    let friend_copy = world.spawn_empty().id();
    let source = world
        .spawn(Links {
            friend,
            others: vec![],
            unmapped: friend,
        })
        .id();
    let target = world.spawn_empty().id();
    let mut map = EntityHashMap::<Entity>::default();
    map.set_mapped(source, target);
    map.set_mapped(friend, friend_copy);
    let cloned = EntityCloner::default().clone_entity_mapped(&mut world, source, &mut map);
    assert_eq!(cloned, target);
    assert_eq!(world.get::<Links>(target).unwrap().friend, friend_copy);
}

// ---- relationships ----------------------------------------------------------------------

#[test]
fn cloning_a_child_makes_a_sibling_and_a_parent_clone_has_no_children() {
    let mut world = World::new();
    let parent = world.spawn(A(0)).id();
    let child = world.spawn((A(1), ChildOf(parent))).id();
    let sibling = world.entity_mut(child).clone_and_spawn();
    world.flush();
    assert_eq!(world.get::<ChildOf>(sibling), Some(&ChildOf(parent)));
    assert_eq!(&**world.get::<Children>(parent).unwrap(), &[child, sibling]);
    let parent_copy = world.entity_mut(parent).clone_and_spawn();
    assert!(world.get::<Children>(parent_copy).is_none());
    assert_eq!(world.get::<ChildOf>(child), Some(&ChildOf(parent)));
    integrity(&world);
}

#[test]
fn linked_cloning_clones_the_hierarchy_with_mapped_parents() {
    let mut world = World::new();
    let root = world.spawn(A(0)).id();
    let a = world.spawn((A(1), ChildOf(root))).id();
    let b = world.spawn((A(2), ChildOf(root))).id();
    let grandchild = world.spawn((A(3), ChildOf(a))).id();
    let mut builder = EntityCloner::build_opt_out(&mut world);
    builder.linked_cloning(true);
    let mut cloner = builder.finish();
    assert!(cloner.linked_cloning());
    let copy = cloner.spawn_clone(&mut world, root);
    world.flush();
    let kids: Vec<Entity> = world.get::<Children>(copy).unwrap().to_vec();
    assert_eq!(kids.len(), 2);
    assert!(!kids.contains(&a) && !kids.contains(&b));
    assert_eq!(world.get::<A>(kids[0]), Some(&A(1)));
    assert_eq!(world.get::<A>(kids[1]), Some(&A(2)));
    let grandkids: Vec<Entity> = world.get::<Children>(kids[0]).unwrap().to_vec();
    assert_eq!(grandkids.len(), 1);
    assert_ne!(grandkids[0], grandchild);
    assert_eq!(world.get::<A>(grandkids[0]), Some(&A(3)));
    assert_eq!(world.get::<ChildOf>(grandkids[0]), Some(&ChildOf(kids[0])));
    // The original is untouched.
    assert_eq!(&**world.get::<Children>(root).unwrap(), &[a, b]);
    assert_eq!(&**world.get::<Children>(a).unwrap(), &[grandchild]);
    // Despawning the copy despawns its (copied) descendants only.
    world.despawn(copy);
    world.flush();
    assert!(world.get_entity(grandkids[0]).is_err());
    assert!(world.get_entity(grandchild).is_ok());
    integrity(&world);
}

#[test]
fn linked_cloning_a_deep_chain_does_not_recurse() {
    let mut world = World::new();
    let root = world.spawn(A(0)).id();
    let mut last = root;
    // Interpreted, depth is not the point; the clone's unsafe paths are.
    let n = if cfg!(miri) { 200 } else { 20_000 };
    for i in 1..n {
        last = world.spawn((A(i), ChildOf(last))).id();
    }
    let mut builder = EntityCloner::build_opt_out(&mut world);
    builder.linked_cloning(true);
    let mut cloner = builder.finish();
    assert!(cloner.linked_cloning());
    let copy = cloner.spawn_clone(&mut world, root);
    world.flush();
    let mut depth = 0;
    let mut at = copy;
    while let Some(children) = world.get::<Children>(at) {
        at = children[0];
        depth += 1;
    }
    assert_eq!(depth, n - 1);
    assert_eq!(world.get::<A>(at), Some(&A(n - 1)));
}

#[test]
fn moving_children_repoints_them() {
    let mut world = World::new();
    let parent = world.spawn_empty().id();
    let child = world.spawn(ChildOf(parent)).id();
    let target = world.spawn_empty().id();
    world.entity_mut(parent).move_components::<Children>(target);
    world.flush();
    assert_eq!(world.get::<ChildOf>(child), Some(&ChildOf(target)));
    assert_eq!(&**world.get::<Children>(target).unwrap(), &[child]);
    assert!(world.get::<Children>(parent).is_none());
    integrity(&world);
}

// ---- dynamic components -----------------------------------------------------------------

#[test]
fn dynamic_components_clone_only_with_a_behavior() {
    let mut world = World::new();
    // SAFETY: `u64` values, no drop.
    let skipped = world.register_component_with_descriptor(unsafe {
        ComponentDescriptor::new_with_layout(
            "skipped",
            ecs::component::StorageType::Table,
            std::alloc::Layout::new::<u64>(),
            None,
        )
    });
    fn copy_bits(source: &SourceComponent, ctx: &mut ComponentCloneCtx) {
        // SAFETY: the component is a plain `u64`, so a bitwise copy owns
        // itself.
        unsafe { ctx.write_target_component_ptr(source.ptr()) };
    }
    // SAFETY: as above.
    let copied = world.register_component_with_descriptor(unsafe {
        ComponentDescriptor::new_with_layout(
            "copied",
            ecs::component::StorageType::SparseSet,
            std::alloc::Layout::new::<u64>(),
            None,
        )
        .with_clone_behavior(ComponentCloneBehavior::Custom(copy_bits))
    });
    let source = world.spawn_empty().id();
    // SAFETY: each pointer is a `u64` of the component's layout, moved in.
    ecs::ptr::OwningPtr::make(5u64, |x| unsafe {
        world.entity_mut(source).insert_by_id(skipped, x);
    });
    // SAFETY: as above.
    ecs::ptr::OwningPtr::make(6u64, |y| unsafe {
        world.entity_mut(source).insert_by_id(copied, y);
    });
    let copy = world.entity_mut(source).clone_and_spawn();
    let entity = world.entity(copy);
    assert!(!entity.contains_id(skipped));
    let value = entity.get_by_id(copied).unwrap();
    // SAFETY: the component is a `u64`, alive while `entity` borrows the world.
    assert_eq!(unsafe { *value.deref::<u64>() }, 6);
}

// ---- panics -----------------------------------------------------------------------------

/// Clones its payload, or panics cloning when `armed`. Sparse, so it is
/// cloned after the table and sparse components registered before it.
#[derive(Component)]
#[component(storage = "SparseSet")]
struct Fragile {
    payload: Payload,
    armed: bool,
}

impl Clone for Fragile {
    fn clone(&self) -> Self {
        if self.armed {
            panic!("cloning fragile {} failed", self.payload.id);
        }
        Fragile {
            payload: self.payload.clone(),
            armed: false,
        }
    }
}

thread_local! {
    static LOG: DropLog = DropLog::default();
}

#[derive(Component, Clone)]
struct Early(#[allow(dead_code)] Payload);

impl Clone for Payload {
    fn clone(&self) -> Self {
        Payload::new(self.id + 100, &LOG.with(|log| log.clone()))
    }
}

#[derive(Component, Clone)]
#[component(storage = "SparseSet")]
struct EarlySparse(#[allow(dead_code)] Payload);

#[test]
fn a_panicking_clone_midway_leaves_the_world_consistent() {
    let log = LOG.with(|log| log.clone());
    let mut world = World::new();
    let source = world
        .spawn((
            Early(Payload::new(1, &log)),
            EarlySparse(Payload::new(2, &log)),
            Fragile {
                payload: Payload::new(3, &log),
                armed: true,
            },
        ))
        .id();
    let target = world.spawn(A(9)).id();
    let msg = expect_panic(|| {
        world.entity_mut(source).clone_with_opt_out(target, |_| {});
    });
    assert!(msg.contains("cloning fragile 3 failed"), "{msg}");
    integrity(&world);
    // The clones made before the panic were dropped, once; nothing reached
    // the target; the source is whole.
    log.assert_dropped_once(&[101, 102]);
    log.assert_not_dropped(&[1, 2, 3]);
    log.assert_no_double_drop();
    assert_eq!(world.get::<A>(target), Some(&A(9)));
    assert!(world.get::<Early>(target).is_none() && world.get::<EarlySparse>(target).is_none());
    assert!(world.get::<Early>(source).is_some());
    assert!(world.get::<Fragile>(source).is_some());
    // The world and a reused cloner keep working.
    world.get_mut::<Fragile>(source).unwrap().armed = false;
    let copy = world.entity_mut(source).clone_and_spawn();
    assert_eq!(world.get::<Fragile>(copy).map(|f| f.payload.id), Some(103));
    integrity(&world);
    drop(world);
    // 101 and 102: once from the interrupted clone, once from the copy.
    let counts = log.counts();
    for (id, times) in [(1, 1), (2, 1), (3, 1), (101, 2), (102, 2), (103, 1)] {
        assert_eq!(counts.get(&id).copied().unwrap_or(0), times, "value {id}");
    }
}

#[test]
fn a_panicking_hook_on_the_clone_drops_each_value_once() {
    #[derive(Component, Clone)]
    #[component(on_insert = explode)]
    struct Touchy(#[allow(dead_code)] Payload);
    fn explode(_: DeferredWorld, _: HookContext) {
        if ARMED.load(Ordering::SeqCst) {
            panic!("touchy hook");
        }
    }
    static ARMED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    let log = LOG.with(|log| log.clone());
    let mut world = World::new();
    let source = world
        .spawn((Touchy(Payload::new(7, &log)), Early(Payload::new(8, &log))))
        .id();
    ARMED.store(true, Ordering::SeqCst);
    let msg = expect_panic(|| world.entity_mut(source).clone_and_spawn());
    ARMED.store(false, Ordering::SeqCst);
    assert!(msg.contains("touchy hook"), "{msg}");
    integrity(&world);
    log.assert_not_dropped(&[7, 8, 107, 108]);
    drop(world);
    log.assert_no_double_drop();
    log.assert_dropped_once(&[7, 8, 107, 108]);
}

/// A hook of the source that panics while components move out does not
/// lose them: they reach the target, each value is dropped once, and then
/// the panic goes on.
#[test]
fn a_panicking_source_hook_during_move_components_still_moves_the_values() {
    fn explode_on_remove(_: DeferredWorld, _: HookContext) {
        panic!("on_remove of the source");
    }
    #[derive(Component)]
    #[component(on_remove = explode_on_remove)]
    struct Cargo(Payload);
    #[derive(Component)]
    struct Ballast(Payload);

    let drops = DropLog::default();
    let mut world = World::new();
    let source = world
        .spawn((
            Cargo(Payload::new(1, &drops)),
            Ballast(Payload::new(2, &drops)),
        ))
        .id();
    let target = world.spawn_empty().id();
    let message = expect_panic(|| {
        world
            .entity_mut(source)
            .move_components::<(Cargo, Ballast)>(target);
    });
    assert!(message.contains("on_remove of the source"), "{message}");
    assert_eq!(world.get::<Cargo>(target).map(|c| c.0.id), Some(1));
    assert_eq!(world.get::<Ballast>(target).map(|b| b.0.id), Some(2));
    assert!(world.get::<Cargo>(source).is_none() && world.get::<Ballast>(source).is_none());
    drops.assert_not_dropped(&[1, 2]);
    integrity(&world);
    drop(world);
    drops.assert_dropped_once(&[1, 2]);
}

/// A component whose `Clone` panics.
#[derive(Component)]
struct Unclonable;

#[derive(Component, Clone, PartialEq, Debug)]
struct Label(&'static str);

impl Clone for Unclonable {
    fn clone(&self) -> Self {
        panic!("Unclonable cannot be cloned")
    }
}

/// The world's entities, sorted.
fn all_entities(world: &mut World) -> Vec<Entity> {
    let mut entities: Vec<Entity> = world.query::<Entity>().iter(world).collect();
    entities.sort();
    entities
}

/// Every way of cloning into a new entity leaves no entity behind when a
/// `Clone` panics (or the source is missing), and the source keeps its
/// values.
#[test]
fn a_clone_into_a_new_entity_that_panics_leaves_no_entity() {
    let mut world = World::new();
    let source = world.spawn((A(1), Unclonable)).id();
    let before = all_entities(&mut world);
    let attempts: [fn(&mut World, Entity); 4] = [
        |world, source| {
            world.entity_mut(source).clone_and_spawn();
        },
        |world, source| {
            world
                .entity_mut(source)
                .clone_and_spawn_with_opt_out(|_| {});
        },
        |world, source| {
            world
                .entity_mut(source)
                .clone_and_spawn_with_opt_in(|builder| {
                    builder.allow::<(A, Unclonable)>();
                });
        },
        |world, source| {
            EntityCloner::build_opt_out(world)
                .finish()
                .spawn_clone(world, source);
        },
    ];
    for (index, attempt) in attempts.into_iter().enumerate() {
        let outcome = catch_unwind(AssertUnwindSafe(|| attempt(&mut world, source)));
        assert!(outcome.is_err(), "attempt {index}");
        integrity(&world);
        assert_eq!(all_entities(&mut world), before, "attempt {index}");
    }
    let missing = world.spawn_empty().id();
    world.despawn(missing);
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        EntityCloner::build_opt_out(&mut world)
            .finish()
            .spawn_clone(&mut world, missing)
    }));
    assert!(outcome.is_err());
    assert_eq!(all_entities(&mut world), before);
    assert_eq!(world.get::<A>(source), Some(&A(1)));
}

/// Linked cloning whose grandchild's `Clone` panics keeps the clones made
/// before it, whole, and leaves no empty entity for the ones not made,
/// whether the root is cloned into a new entity or onto an existing one.
#[test]
fn a_linked_clone_that_panics_leaves_no_half_made_entity() {
    let mut world = World::new();
    let parent = world.spawn(Label("parent")).id();
    let child = world.spawn((ChildOf(parent), Label("child"))).id();
    world.spawn((ChildOf(child), Label("grandchild"), Unclonable));
    let before = all_entities(&mut world);
    let linked_cloner = |world: &mut World| {
        let mut builder = EntityCloner::build_opt_out(world);
        builder.linked_cloning(true);
        builder.finish()
    };
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        linked_cloner(&mut world).spawn_clone(&mut world, parent)
    }));
    assert!(outcome.is_err());
    integrity(&world);
    let made: Vec<Entity> = all_entities(&mut world)
        .into_iter()
        .filter(|e| !before.contains(e))
        .collect();
    assert_eq!(made.len(), 2, "the parent's and the child's clones");
    let root = made
        .iter()
        .copied()
        .find(|&e| world.get::<Label>(e) == Some(&Label("parent")))
        .unwrap();
    let kids: Vec<Entity> = world.get::<Children>(root).unwrap().iter().collect();
    assert_eq!(kids.len(), 1);
    assert_eq!(world.get::<Label>(kids[0]), Some(&Label("child")));
    assert!(world.get::<Children>(kids[0]).is_none());

    let target = world.spawn_empty().id();
    let before = all_entities(&mut world);
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        linked_cloner(&mut world).clone_entity(&mut world, parent, target);
    }));
    assert!(outcome.is_err());
    integrity(&world);
    assert_eq!(all_entities(&mut world).len(), before.len() + 1);
    assert_eq!(world.get::<Label>(target), Some(&Label("parent")));
    assert_eq!(world.get::<Children>(target).unwrap().len(), 1);
}
