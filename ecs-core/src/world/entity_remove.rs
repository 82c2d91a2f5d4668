//! Removals of a computed set of components: [`EntityWorldMut::retain`]
//! and [`EntityWorldMut::remove_with_requires`].

use super::{EntityWorldMut, World};
use crate::{
    bundle::{remove_bundle, Bundle},
    component::ComponentId,
};

impl EntityWorldMut<'_> {
    /// Removes every component of the entity except those of `B` and the
    /// components they require (dropping them; hooks and observers run).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component, Default)]
    /// struct Mass;
    /// #[derive(Component)]
    /// #[require(Mass)]
    /// struct Body;
    /// #[derive(Component)]
    /// struct Label;
    ///
    /// let mut world = World::new();
    /// let mut e = world.spawn((Body, Label));
    /// e.retain::<Body>();
    /// assert!(e.contains::<Body>() && e.contains::<Mass>() && !e.contains::<Label>());
    /// ```
    #[track_caller]
    pub fn retain<B: Bundle>(&mut self) -> &mut Self {
        self.refresh_location();
        let keep = contributed_components::<B>(self.world);
        let remove = self
            .archetype()
            .components()
            .filter(|id| !keep.contains(id))
            .collect();
        self.remove_ids(remove)
    }

    /// Removes the components of `B` the entity has, and every component
    /// they require, inserted on their own or not (dropping them; hooks and
    /// observers run).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component, Default)]
    /// struct Mass;
    /// #[derive(Component)]
    /// #[require(Mass)]
    /// struct Body;
    ///
    /// let mut world = World::new();
    /// let mut e = world.spawn(Body);
    /// e.remove_with_requires::<Body>();
    /// assert!(!e.contains::<Body>() && !e.contains::<Mass>());
    /// ```
    #[track_caller]
    pub fn remove_with_requires<B: Bundle>(&mut self) -> &mut Self {
        self.refresh_location();
        let contributed = contributed_components::<B>(self.world);
        let archetype = self.archetype();
        let remove = contributed
            .into_iter()
            .filter(|&id| archetype.contains(id))
            .collect();
        self.remove_ids(remove)
    }

    /// Removes the components `ids`, all of which the entity has (the
    /// caller refreshed the location).
    #[track_caller]
    fn remove_ids(&mut self, mut ids: Vec<ComponentId>) -> &mut Self {
        if ids.is_empty() {
            return self;
        }
        // One bundle per set, whatever order the set was found in.
        ids.sort_unstable();
        let bundle_id = self
            .world
            .bundles
            .register_dynamic(&ids, &self.world.components);
        self.relocate(|world, entity, location| {
            // SAFETY: `refresh_location` (the callers') made the location
            // current and flushed the world; nothing moved since.
            ((), unsafe {
                remove_bundle(world, entity, location, bundle_id)
            })
        });
        self
    }
}

/// The components of `B` and the components each requires, registering
/// `B` if needed.
#[track_caller]
fn contributed_components<B: Bundle>(world: &mut World) -> Vec<ComponentId> {
    let bundle_id = world.bundles.register_info::<B>(&mut world.components);
    let mut ids: Vec<ComponentId> = world.bundles[bundle_id].components().to_vec();
    for index in 0..ids.len() {
        let info = world.components.get_info(ids[index]).expect("registered");
        for required in info.required_components() {
            if !ids.contains(&required.id) {
                ids.push(required.id);
            }
        }
    }
    ids
}
