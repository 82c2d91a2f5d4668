//! Listing the world's entities and an entity's components, and the
//! world's own [`Commands`].

use super::{EntityRef, World};
use crate::{
    component::{ComponentId, ComponentInfo},
    entity::{Entity, EntityNotSpawnedError},
    system::Commands,
};

impl World {
    /// Commands onto the world's own queue, applied by [`World::flush`]
    /// (and after every structural change).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Marker;
    ///
    /// let mut world = World::new();
    /// let e = world.commands().spawn(Marker).id();
    /// world.flush();
    /// assert!(world.entity(e).contains::<Marker>());
    /// ```
    #[inline]
    pub fn commands(&mut self) -> Commands<'_, '_> {
        let id = self.id;
        Commands::new_from_entities(self.command_queue.get_mut(), &self.entities, id)
    }

    /// A read-only handle to every spawned entity, archetype by archetype.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// let mut world = World::new();
    /// let a = world.spawn_empty().id();
    /// let ids: Vec<Entity> = world.iter_entities().map(|e| e.id()).collect();
    /// assert_eq!(ids, [a]);
    /// ```
    pub fn iter_entities(&self) -> impl Iterator<Item = EntityRef<'_>> + '_ {
        self.archetypes.iter().flat_map(move |archetype| {
            let table = &self.storages.tables[archetype.table_id()];
            archetype.entities_in(table).map(move |archetype_entity| {
                let entity = archetype_entity.id();
                let location = self
                    .entities
                    .get(entity)
                    .expect("an archetype's entities are spawned");
                EntityRef::new(self, entity, location)
            })
        })
    }

    /// The id and info of each component of `entity`.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Health(u32);
    ///
    /// let mut world = World::new();
    /// let e = world.spawn(Health(1)).id();
    /// let names: Vec<&str> = world.inspect_entity(e).unwrap().map(|(_, info)| info.name()).collect();
    /// assert!(names[0].ends_with("Health"));
    /// ```
    ///
    /// # Errors
    /// [`EntityNotSpawnedError`] if the entity is not spawned, naming it
    /// and why.
    pub fn inspect_entity(
        &self,
        entity: Entity,
    ) -> Result<impl Iterator<Item = (ComponentId, &ComponentInfo)>, EntityNotSpawnedError> {
        let location = self.entities.get_spawned(entity)?;
        Ok(self.archetypes[location.archetype_id]
            .components()
            .filter_map(|id| self.components.get_info(id).map(|info| (id, info))))
    }
}
