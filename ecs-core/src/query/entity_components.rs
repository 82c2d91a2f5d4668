//! Query data fetched from one entity handle: `EntityRef::components`,
//! `EntityWorldMut::get_components_mut` and their kin, for code that holds
//! a handle rather than a query.

use super::{FilteredAccess, QueryAccessError, QueryData, ReadOnlyQueryData};
use crate::{
    entity::{Entity, EntityLocation},
    world::{EntityMut, EntityRef, EntityWorldMut, UnsafeWorldCell},
};

/// `Q`'s item for `entity`, built from the components already registered.
///
/// # Safety
/// `location` is `entity`'s current location in the cell's world, which
/// changes no archetype for `'w`, and the caller may access the entity's
/// values as `Q` does for `'w` (a read-only `Q` only reads).
#[track_caller]
unsafe fn fetch_components<'w, Q: QueryData>(
    cell: UnsafeWorldCell<'w>,
    entity: Entity,
    location: EntityLocation,
) -> Result<Q::Item<'w>, QueryAccessError> {
    let world = cell.meta();
    let state = Q::get_state(world.components()).ok_or(QueryAccessError::ComponentNotRegistered)?;
    // Refuses terms that would alias (`(&mut A, &A)`) and ticks a
    // component does not keep, naming the component, before any
    // reference exists.
    Q::update_component_access(&state, &mut FilteredAccess::default());
    let archetype = &world.archetypes()[location.archetype_id];
    if !Q::matches_component_set(&state, &|id| archetype.contains(id)) {
        return Err(QueryAccessError::EntityDoesNotMatch);
    }
    // SAFETY: the terms read (or write) only the entity's values, which
    // the caller may access as `Q` does; the archetype matches `Q` and
    // `table` is its table; the row is the entity's.
    unsafe {
        let table = &cell.storages().tables[location.table_id];
        let mut fetch = Q::init_fetch(cell, &state, world.last_change_tick(), world.change_tick());
        Q::set_archetype(&mut fetch, &state, archetype, table);
        Ok(Q::fetch(&mut fetch, entity, location.table_row))
    }
}

impl<'w> EntityRef<'w> {
    /// The read-only query data `Q` of this entity (`(&A, Option<&B>,
    /// Has<C>)`, a derived `QueryData`, ...).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component, Debug, PartialEq)]
    /// struct Speed(f32);
    /// #[derive(Component)]
    /// struct Frozen;
    ///
    /// let mut world = World::new();
    /// world.register_component::<Frozen>();
    /// let e = world.spawn(Speed(2.0)).id();
    /// let (speed, frozen) = world.entity(e).components::<(&Speed, Has<Frozen>)>();
    /// assert_eq!((speed, frozen), (&Speed(2.0), false));
    /// ```
    ///
    /// # Panics
    /// If the entity does not match `Q` or one of its components is not
    /// registered ([`EntityRef::get_components`] says which).
    #[track_caller]
    pub fn components<Q: ReadOnlyQueryData>(&self) -> Q::Item<'w> {
        match self.get_components::<Q>() {
            Ok(item) => item,
            Err(error) => panic!(
                "entity {}: query `{}`: {error}",
                self.id(),
                std::any::type_name::<Q>()
            ),
        }
    }

    /// [`EntityRef::components`], or why there is no item.
    ///
    /// # Errors
    /// [`QueryAccessError::EntityDoesNotMatch`] if the entity lacks a
    /// component `Q` needs, [`QueryAccessError::ComponentNotRegistered`] if
    /// one is not registered.
    #[track_caller]
    pub fn get_components<Q: ReadOnlyQueryData>(&self) -> Result<Q::Item<'w>, QueryAccessError> {
        // SAFETY: the handle reads the entity's values for `'w` while no
        // archetype changes, and `Q` only reads.
        unsafe {
            fetch_components::<Q>(
                UnsafeWorldCell::new_readonly(self.world()),
                self.id(),
                self.location(),
            )
        }
    }
}

impl EntityWorldMut<'_> {
    /// [`EntityRef::components`] of this entity.
    ///
    /// # Panics
    /// As for [`EntityRef::components`], and if the entity was despawned.
    #[track_caller]
    pub fn components<Q: ReadOnlyQueryData>(&self) -> Q::Item<'_> {
        self.as_readonly().components::<Q>()
    }

    /// [`EntityRef::get_components`] of this entity.
    ///
    /// # Errors
    /// As for [`EntityRef::get_components`].
    #[track_caller]
    pub fn get_components<Q: ReadOnlyQueryData>(&self) -> Result<Q::Item<'_>, QueryAccessError> {
        self.as_readonly().get_components::<Q>()
    }

    /// The query data `Q` of this entity, writes included (`(&mut A, &B)`).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Position(f32);
    /// #[derive(Component)]
    /// struct Velocity(f32);
    ///
    /// let mut world = World::new();
    /// let mut e = world.spawn((Position(0.0), Velocity(2.0)));
    /// let (mut p, v) = e.get_components_mut::<(&mut Position, &Velocity)>().unwrap();
    /// p.0 += v.0;
    /// assert_eq!(e.get::<Position>().unwrap().0, 2.0);
    /// ```
    ///
    /// # Errors
    /// As for [`EntityRef::get_components`].
    ///
    /// # Panics
    /// If `Q`'s terms alias (`(&mut A, &A)`), naming the component.
    #[track_caller]
    pub fn get_components_mut<Q: QueryData>(&mut self) -> Result<Q::Item<'_>, QueryAccessError> {
        self.as_mutable().into_components_mut::<Q>()
    }
}

impl<'w> EntityWorldMut<'w> {
    /// [`EntityWorldMut::get_components_mut`] for the handle's whole
    /// lifetime.
    ///
    /// # Errors
    /// As for [`EntityRef::get_components`].
    ///
    /// # Panics
    /// As for [`EntityWorldMut::get_components_mut`], and if the entity was
    /// despawned.
    #[track_caller]
    pub fn into_components_mut<Q: QueryData>(self) -> Result<Q::Item<'w>, QueryAccessError> {
        self.into_mutable().into_components_mut::<Q>()
    }
}

impl<'w> EntityMut<'w> {
    /// [`EntityRef::components`] of this entity.
    ///
    /// # Panics
    /// As for [`EntityRef::components`].
    #[track_caller]
    pub fn components<Q: ReadOnlyQueryData>(&self) -> Q::Item<'_> {
        self.as_readonly().components::<Q>()
    }

    /// [`EntityRef::get_components`] of this entity.
    ///
    /// # Errors
    /// As for [`EntityRef::get_components`].
    #[track_caller]
    pub fn get_components<Q: ReadOnlyQueryData>(&self) -> Result<Q::Item<'_>, QueryAccessError> {
        self.as_readonly().get_components::<Q>()
    }

    /// [`EntityWorldMut::get_components_mut`] of this entity.
    ///
    /// # Errors
    /// As for [`EntityRef::get_components`].
    ///
    /// # Panics
    /// As for [`EntityWorldMut::get_components_mut`].
    #[track_caller]
    pub fn get_components_mut<Q: QueryData>(&mut self) -> Result<Q::Item<'_>, QueryAccessError> {
        self.reborrow().into_components_mut::<Q>()
    }

    /// [`EntityMut::get_components_mut`] for the handle's whole lifetime.
    ///
    /// # Errors
    /// As for [`EntityRef::get_components`].
    ///
    /// # Panics
    /// As for [`EntityWorldMut::get_components_mut`].
    #[track_caller]
    pub fn into_components_mut<Q: QueryData>(self) -> Result<Q::Item<'w>, QueryAccessError> {
        // SAFETY: the consumed handle had exclusive access to the entity's
        // values for `'w` with no archetype change (`EntityMut`'s
        // contract), and `fetch_components` refuses aliasing terms.
        unsafe { fetch_components::<Q>(self.cell(), self.id(), self.location()) }
    }
}
