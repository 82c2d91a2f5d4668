//! [`Commands::spawn`](super::Commands::spawn) applied in runs: consecutive
//! spawns of one bundle type, with nothing queued between them, are one
//! command of the queue.
//!
//! ```text
//!  commands.spawn(a0); commands.spawn(a1); commands.spawn(a2);
//!    -> queue: [SpawnRun<A> { (e0, a0), (e1, a1), (e2, a2) }]
//!  apply: resolve A's archetype once, reserve its rows once, then move
//!         each entity (flushed into the empty archetype, as one spawn
//!         command would find it) straight into it and write its values
//! ```
//!
//! Applied one by one, each spawn would insert its bundle into its entity,
//! then fire that entity's `on_add`/`on_insert` hooks and observers, whose
//! commands apply before the next spawn. A run keeps that order: it shares
//! the work only while nothing can watch, that is, while the bundle's
//! archetype has no such hook or observer and each entity is still live
//! with no component. Any other entry is inserted exactly as one spawn
//! command would insert it, after which the run stops and the queue comes
//! back to it once the commands that insert queued are applied.

use std::marker::PhantomData;

use crate::{
    archetype::ArchetypeId,
    bundle::{Bundle, BundleSpawner},
    entity::Entity,
    world::{CommandRun, RunEntries, World},
};

/// The run type of `Commands::spawn::<B>`: its entries are each spawned
/// entity and its bundle.
pub(super) struct SpawnRun<B>(PhantomData<fn(B)>);

impl<B: Bundle> CommandRun for SpawnRun<B> {
    type Entry = (Entity, B);

    fn apply_some(entries: &mut RunEntries<'_, (Entity, B)>, world: &mut World) {
        // As each spawn command's own lookup would.
        world.flush_entities();
        let Some((entity, bundle)) = entries.next_entry() else {
            return;
        };
        // Only an empty entity goes to the bundle's own archetype, which
        // is not made for the others (as one spawn command would not).
        if !is_empty_entity(world, entity) {
            return spawn_one(world, entity, bundle);
        }
        let change_tick = world.change_tick();
        let bundle_id = world.bundles.register_info::<B>(&mut world.components);
        let mut spawner = BundleSpawner::new(world, bundle_id, change_tick);
        if spawner.fires_lifecycle() {
            return spawn_one(world, entity, bundle);
        }
        spawner.reserve_rows(1 + entries.remaining());
        let mut next = Some((entity, bundle));
        while let Some((entity, bundle)) = next {
            if let Err(bundle) = spawner.spawn_into_empty(entity, bundle) {
                // No longer empty: a command before the run changed it.
                return spawn_one(world, entity, bundle);
            }
            next = entries.next_entry();
        }
    }
}

/// Whether `entity` is live, with no component.
#[inline]
fn is_empty_entity(world: &World, entity: Entity) -> bool {
    world
        .entities
        .get(entity)
        .is_some_and(|location| location.archetype_id == ArchetypeId::EMPTY)
}

/// One spawn command: inserts `bundle` into `entity` if it still exists,
/// with every hook, observer and command that sets off.
fn spawn_one<B: Bundle>(world: &mut World, entity: Entity, bundle: B) {
    if let Ok(mut e) = world.get_entity_mut(entity) {
        e.insert(bundle);
    }
}
