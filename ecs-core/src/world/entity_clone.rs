//! Cloning from an [`EntityWorldMut`]: `clone_and_spawn`,
//! `clone_with_opt_out`/`opt_in`, `clone_components` and
//! `move_components`, and the structural steps the
//! [`EntityCloner`] takes on the world.

use super::{EntityWorldMut, World};
use crate::{
    archetype::EdgeKind,
    bundle::{fire_before_remove, insert_bundle, remove_bundle, Bundle, InsertMode},
    component::{ComponentId, StorageType},
    entity::{
        clone_entities::{spawn_for_clone, CloneScratch, ScratchBundle},
        Entity, EntityCloner, EntityClonerBuilder, OptIn, OptOut,
    },
    utils::DropPanics,
    world::relocation::move_entity,
};

impl EntityWorldMut<'_> {
    /// Clones this entity's components onto `target`, every one but those
    /// `config` denies.
    ///
    /// # Panics
    /// If this entity or `target` does not exist.
    #[track_caller]
    pub fn clone_with_opt_out(
        &mut self,
        target: Entity,
        config: impl FnOnce(&mut EntityClonerBuilder<OptOut>) + Send + Sync + 'static,
    ) -> &mut Self {
        let source = self.id();
        self.world_scope(|world| {
            let mut builder = EntityCloner::build_opt_out(world);
            config(&mut builder);
            builder.clone_entity(source, target);
        });
        self
    }

    /// Clones the components `config` allows of this entity onto `target`.
    ///
    /// # Panics
    /// If this entity or `target` does not exist.
    #[track_caller]
    pub fn clone_with_opt_in(
        &mut self,
        target: Entity,
        config: impl FnOnce(&mut EntityClonerBuilder<OptIn>) + Send + Sync + 'static,
    ) -> &mut Self {
        let source = self.id();
        self.world_scope(|world| {
            let mut builder = EntityCloner::build_opt_in(world);
            config(&mut builder);
            builder.clone_entity(source, target);
        });
        self
    }

    /// Spawns a clone of this entity (every component whose
    /// [clone behavior](crate::component::ComponentCloneBehavior) clones
    /// it) and returns it.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component, Clone, PartialEq, Debug)]
    /// struct Name(String);
    ///
    /// let mut world = World::new();
    /// let original = world.spawn(Name("a".into())).id();
    /// let copy = world.entity_mut(original).clone_and_spawn();
    /// assert_eq!(world.get::<Name>(copy), Some(&Name("a".into())));
    /// ```
    #[track_caller]
    pub fn clone_and_spawn(&mut self) -> Entity {
        self.clone_and_spawn_with_opt_out(|_| {})
    }

    /// Spawns a clone of this entity without the components `config`
    /// denies, and returns it.
    #[track_caller]
    pub fn clone_and_spawn_with_opt_out(
        &mut self,
        config: impl FnOnce(&mut EntityClonerBuilder<OptOut>) + Send + Sync + 'static,
    ) -> Entity {
        let source = self.id();
        self.world_scope(|world| {
            spawn_for_clone(world, |world, target| {
                let mut builder = EntityCloner::build_opt_out(world);
                config(&mut builder);
                builder.clone_entity(source, target);
            })
        })
    }

    /// Spawns a clone of this entity with only the components `config`
    /// allows, and returns it.
    #[track_caller]
    pub fn clone_and_spawn_with_opt_in(
        &mut self,
        config: impl FnOnce(&mut EntityClonerBuilder<OptIn>) + Send + Sync + 'static,
    ) -> Entity {
        let source = self.id();
        self.world_scope(|world| {
            spawn_for_clone(world, |world, target| {
                let mut builder = EntityCloner::build_opt_in(world);
                config(&mut builder);
                builder.clone_entity(source, target);
            })
        })
    }

    /// Clones the components of `B` this entity has onto `target`.
    ///
    /// # Panics
    /// If this entity or `target` does not exist.
    #[track_caller]
    pub fn clone_components<B: Bundle>(&mut self, target: Entity) -> &mut Self {
        self.clone_with_opt_in(target, |builder| {
            builder.allow::<B>();
        })
    }

    /// Moves the components of `B` this entity has onto `target`: they are
    /// inserted there and removed here.
    ///
    /// # Panics
    /// If this entity or `target` does not exist.
    #[track_caller]
    pub fn move_components<B: Bundle>(&mut self, target: Entity) -> &mut Self {
        self.clone_with_opt_in(target, |builder| {
            builder.allow::<B>().move_components(true);
        })
    }

    /// Removes (dropping) whichever of `ids` the entity has, as one
    /// structural change.
    #[track_caller]
    pub(crate) fn remove_ids_for_clone(&mut self, ids: &[ComponentId]) {
        let present: Vec<ComponentId> = {
            let archetype = self.archetype();
            ids.iter()
                .copied()
                .filter(|&id| archetype.contains(id))
                .collect()
        };
        if present.is_empty() {
            return;
        }
        self.refresh_location();
        let bundle_id = self
            .world
            .bundles
            .register_dynamic(&present, &self.world.components);
        self.relocate(|world, entity, location| {
            // SAFETY: the location is current and the world flushed.
            ((), unsafe {
                remove_bundle(world, entity, location, bundle_id)
            })
        });
    }

    /// Takes whichever of `ids` the entity has off it without dropping
    /// them, pushing each value into `scratch`.
    ///
    /// # Safety
    /// `scratch`'s values are inserted into this world only.
    #[track_caller]
    pub(crate) unsafe fn take_ids_for_clone(
        &mut self,
        ids: &[ComponentId],
        scratch: &mut CloneScratch,
    ) {
        let present: Vec<ComponentId> = {
            let archetype = self.archetype();
            ids.iter()
                .copied()
                .filter(|&id| archetype.contains(id))
                .collect()
        };
        if present.is_empty() {
            return;
        }
        self.refresh_location();
        let bundle_id = self
            .world
            .bundles
            .register_dynamic(&present, &self.world.components);
        self.relocate(|world, entity, location| {
            let new_archetype = world.bundles[bundle_id]
                .remove_bundle_from_archetype(
                    &mut world.archetypes,
                    &mut world.storages,
                    &world.components,
                    location.archetype_id,
                    false,
                )
                .expect("the entity has every component taken");
            let mut hook_panics = DropPanics::default();
            fire_before_remove(world, entity, location, bundle_id, &mut hook_panics);
            let table = &world.storages.tables[location.table_id];
            for &id in &present {
                let info = world.components.get_info(id).expect("registered");
                let value = match info.storage_type() {
                    // SAFETY: the entity's table has the column and its row
                    // is in bounds; the move below forgets the value.
                    StorageType::Table => unsafe {
                        table
                            .get_column(id)
                            .expect("table column exists")
                            .get_data_unchecked(location.table_row.index())
                    },
                    StorageType::SparseSet => {
                        world
                            .storages
                            .sparse_sets
                            .get_mut(id)
                            .and_then(|set| set.remove_and_forget(entity))
                            .expect("sparse value exists")
                            .0
                    }
                };
                // SAFETY: `value` is the entity's owned value of `id`, read
                // before anything else touches its storage.
                unsafe { scratch.push_copy(info, value) };
            }
            let mut panics = DropPanics::default();
            // SAFETY: the take edge of `bundle_id` leads to
            // `new_archetype`; the taken values were copied out above.
            let location = unsafe {
                move_entity(
                    world,
                    entity,
                    location,
                    new_archetype,
                    EdgeKind::Take(bundle_id),
                    &mut panics,
                )
            };
            debug_assert!(panics.is_empty(), "a take drops nothing");
            // A hook's or observer's panic goes on once the values are out;
            // the scratch owns them and drops them.
            hook_panics.finish();
            ((), location)
        });
    }

    /// Inserts the clones in `scratch`, replacing the values the entity
    /// has.
    #[track_caller]
    pub(crate) fn insert_clones(&mut self, scratch: &mut CloneScratch) {
        self.refresh_location();
        let ids = scratch.ids();
        let bundle_id = self
            .world
            .bundles
            .register_dynamic(&ids, &self.world.components);
        // SAFETY: the bundle's ids are the scratch's, of this world.
        let bundle = unsafe { ScratchBundle::new(scratch) };
        self.relocate(|world: &mut World, entity, location| {
            // SAFETY: the location is current; the bundle hands out owned
            // values of `bundle_id`'s components, in order.
            let location = unsafe {
                insert_bundle(
                    world,
                    entity,
                    location,
                    bundle_id,
                    bundle,
                    InsertMode::Replace,
                )
            };
            ((), location)
        });
    }
}
