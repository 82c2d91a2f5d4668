//! [`QueryBuilder`]: queries whose terms are decided at run time.

use std::marker::PhantomData;

use super::{Access, FilteredAccess, QueryData, QueryFilter, QueryState, With, Without};
use crate::{
    bundle::Bundle,
    component::{Component, ComponentId},
    world::World,
};

/// Builds a [`QueryState`] from terms chosen at run time: components by
/// type or by [`ComponentId`], read (`ref_id`) or written (`mut_id`),
/// required, optional, or in `or` groups. With
/// [`FilteredEntityRef`](crate::world::FilteredEntityRef) or
/// [`FilteredEntityMut`](crate::world::FilteredEntityMut) as the data,
/// the items may read (write) exactly the components given by
/// `ref_id`/`mut_id`.
///
/// The built state is cached and kept up to date as a typed one is.
///
/// ```
/// use ecs::prelude::*;
/// use ecs::world::FilteredEntityMut;
///
/// #[derive(Component)]
/// struct Health(u32);
/// #[derive(Component)]
/// struct Frozen;
///
/// let mut world = World::new();
/// world.spawn(Health(1));
/// world.spawn((Health(5), Frozen));
/// let health = world.register_component::<Health>();
/// let mut query = QueryBuilder::<FilteredEntityMut>::new(&mut world)
///     .mut_id(health)
///     .without::<Frozen>()
///     .build();
/// for mut entity in query.iter_mut(&mut world) {
///     let mut value = entity.get_mut_by_id(health).unwrap();
///     // SAFETY: `health` is `Health`'s id.
///     unsafe { value.as_mut().deref_mut::<Health>().0 += 10 };
/// }
/// let mut all = world.query::<&Health>();
/// let mut values: Vec<u32> = all.iter(&world).map(|h| h.0).collect();
/// values.sort();
/// assert_eq!(values, [5, 11]);
/// ```
///
/// [`QueryBuilder::exclusive`] matches exactly a set of components, a
/// term bevy's builder does not have. In a tuple (`(&A, FilteredEntityMut)`),
/// a filtered handle takes what the builder added that the tuple's other
/// terms, and the filtered handles before it, do not touch.
pub struct QueryBuilder<'w, D: QueryData = (), F: QueryFilter = ()> {
    access: FilteredAccess,
    /// What `ref_id` and `mut_id` asked for, checked against `D`'s own
    /// terms when the state is built.
    dynamic: Access,
    world: &'w mut World,
    or: bool,
    first: bool,
    /// The exact component set of [`QueryBuilder::exclusive_ids`], sorted.
    exact: Option<Vec<ComponentId>>,
    marker: PhantomData<fn() -> (D, F)>,
}

impl<'w, D: QueryData, F: QueryFilter> QueryBuilder<'w, D, F> {
    /// A builder with the terms of `D` and `F`.
    #[track_caller]
    pub fn new(world: &'w mut World) -> Self {
        let fetch_state = D::init_state(world);
        let filter_state = F::init_state(world);
        let mut access = FilteredAccess::default();
        D::update_component_access(&fetch_state, &mut access);
        let mut filter_access = FilteredAccess::default();
        F::update_component_access(&filter_state, &mut filter_access);
        access.extend(&filter_access);
        QueryBuilder {
            access,
            dynamic: Access::default(),
            world,
            or: false,
            first: false,
            exact: None,
            marker: PhantomData,
        }
    }

    /// The world, read-only.
    pub fn world(&self) -> &World {
        self.world
    }

    /// The world, mutably.
    pub fn world_mut(&mut self) -> &mut World {
        self.world
    }

    /// The access the built query will have.
    pub fn access(&self) -> &FilteredAccess {
        &self.access
    }

    /// Adds `access` as a term: and-ed with the others, or, inside
    /// [`QueryBuilder::or`], or-ed.
    pub fn extend_access(&mut self, mut access: FilteredAccess) {
        if self.or {
            if self.first {
                access.clear_required();
                self.access.extend(&access);
                self.first = false;
            } else {
                self.access.append_or(&access);
            }
        } else {
            self.access.extend(&access);
        }
    }

    /// Adds the terms of the query data `T`.
    #[track_caller]
    pub fn data<T: QueryData>(&mut self) -> &mut Self {
        let state = T::init_state(self.world);
        let mut access = FilteredAccess::default();
        T::update_component_access(&state, &mut access);
        self.extend_access(access);
        self
    }

    /// Adds the filter `T`.
    pub fn filter<T: QueryFilter>(&mut self) -> &mut Self {
        let state = T::init_state(self.world);
        let mut access = FilteredAccess::default();
        T::update_component_access(&state, &mut access);
        self.extend_access(access);
        self
    }

    /// Only entities with `T`.
    pub fn with<T: Component>(&mut self) -> &mut Self {
        self.filter::<With<T>>()
    }

    /// Only entities with the component `id`.
    pub fn with_id(&mut self, id: ComponentId) -> &mut Self {
        let mut access = FilteredAccess::default();
        access.and_with(id);
        access.add_required(id);
        self.extend_access(access);
        self
    }

    /// Only entities without `T`.
    pub fn without<T: Component>(&mut self) -> &mut Self {
        self.filter::<Without<T>>()
    }

    /// Only entities without the component `id`.
    pub fn without_id(&mut self, id: ComponentId) -> &mut Self {
        let mut access = FilteredAccess::default();
        access.and_without(id);
        self.extend_access(access);
        self
    }

    /// Only entities with the component `id`, which the items may read.
    pub fn ref_id(&mut self, id: ComponentId) -> &mut Self {
        self.with_id(id);
        self.access.access_mut().add_read(id);
        self.dynamic.add_read(id);
        self
    }

    /// Only entities with the component `id`, which the items may write.
    pub fn mut_id(&mut self, id: ComponentId) -> &mut Self {
        self.with_id(id);
        self.access.access_mut().add_write(id);
        self.dynamic.add_write(id);
        self
    }

    /// Only entities with exactly the components of the bundle `B`, and
    /// no other (the Exclusive set of Arch's query descriptions). See
    /// [`QueryBuilder::exclusive_ids`].
    #[track_caller]
    pub fn exclusive<B: Bundle>(&mut self) -> &mut Self {
        let mut ids = Vec::new();
        B::component_ids(&mut self.world.components, &mut |id| ids.push(id));
        self.exclusive_ids(&ids)
    }

    /// Only entities whose components are exactly `ids`, no more and no
    /// fewer (the Exclusive set of Arch's query descriptions); the other
    /// terms still apply. Archetypes sharing a table may differ by
    /// sparse-set components, so such a query walks archetypes.
    ///
    /// # Panics
    /// Inside [`QueryBuilder::or`] or [`QueryBuilder::optional`], or when
    /// the builder already has an exclusive set: neither has a meaning
    /// worth guessing.
    #[track_caller]
    pub fn exclusive_ids(&mut self, ids: &[ComponentId]) -> &mut Self {
        if self.or {
            panic!(
                "QueryBuilder for `{}`: an exclusive set cannot be one branch of `or`",
                std::any::type_name::<D>()
            );
        }
        if self.exact.is_some() {
            panic!(
                "QueryBuilder for `{}`: it already has an exclusive set; give all the \
                 components in one call",
                std::any::type_name::<D>()
            );
        }
        let mut set = ids.to_vec();
        set.sort_unstable();
        set.dedup();
        for &id in &set {
            self.with_id(id);
        }
        self.exact = Some(set);
        self
    }

    /// The exact component set, if [`QueryBuilder::exclusive_ids`] gave one.
    pub(crate) fn exact(&self) -> Option<&[ComponentId]> {
        self.exact.as_deref()
    }

    /// Adds the reads and writes of the terms `f` adds to a fresh builder,
    /// without requiring them: items may use those components where the
    /// entity has them.
    pub fn optional(&mut self, f: impl FnOnce(&mut QueryBuilder)) -> &mut Self {
        let mut builder = QueryBuilder::new(self.world);
        f(&mut builder);
        if builder.exact.is_some() {
            panic!(
                "QueryBuilder for `{}`: an exclusive set cannot be optional",
                std::any::type_name::<D>()
            );
        }
        self.access.extend_access(builder.access());
        self.dynamic.extend(&builder.dynamic);
        self
    }

    /// Adds the terms `f` adds to a fresh builder as one group (inside
    /// [`QueryBuilder::or`], one branch).
    pub fn and(&mut self, f: impl FnOnce(&mut QueryBuilder)) -> &mut Self {
        let mut builder = QueryBuilder::new(self.world);
        f(&mut builder);
        let access = builder.access().clone();
        self.dynamic.extend(&builder.dynamic);
        if let Some(exact) = builder.exact.take() {
            self.exclusive_ids(&exact);
        }
        self.extend_access(access);
        self
    }

    /// Entities matching any one of the terms `f` adds to a fresh builder.
    pub fn or(&mut self, f: impl FnOnce(&mut QueryBuilder)) -> &mut Self {
        let mut builder = QueryBuilder::new(self.world);
        builder.or = true;
        builder.first = true;
        f(&mut builder);
        self.access.extend(builder.access());
        self.dynamic.extend(&builder.dynamic);
        self
    }

    /// The builder for other data, keeping every term added so far.
    #[track_caller]
    pub fn transmute<NewD: QueryData>(&mut self) -> &mut QueryBuilder<'w, NewD> {
        self.transmute_filtered::<NewD, ()>()
    }

    /// The builder for other data and filter, keeping every term added so
    /// far.
    #[track_caller]
    pub fn transmute_filtered<NewD: QueryData, NewF: QueryFilter>(
        &mut self,
    ) -> &mut QueryBuilder<'w, NewD, NewF> {
        let fetch_state = NewD::init_state(self.world);
        let filter_state = NewF::init_state(self.world);
        let mut access = FilteredAccess::default();
        NewD::update_component_access(&fetch_state, &mut access);
        NewF::update_component_access(&filter_state, &mut access);
        self.extend_access(access);
        let this: *mut Self = self;
        // SAFETY: `QueryBuilder`s differ only in the `PhantomData` of their
        // type parameters, so every field has the same type and place; the
        // access now holds the new data's and filter's terms.
        unsafe { &mut *this.cast::<QueryBuilder<'w, NewD, NewF>>() }
    }

    /// The query state of the builder's terms. It walks tables (and
    /// offers `contiguous_iter`) when `D` and `F` can and no run-time
    /// filter names a sparse-set component; otherwise archetypes.
    ///
    /// # Panics
    /// If a term of `ref_id`/`mut_id` conflicts with a term of `D` (one
    /// writes what the other reads), naming the components.
    #[track_caller]
    pub fn build(&mut self) -> QueryState<D, F> {
        let fetch_state = D::init_state(self.world);
        let mut own = FilteredAccess::default();
        D::update_component_access(&fetch_state, &mut own);
        let conflicts = own.access().get_conflicts(&self.dynamic);
        if !conflicts.is_empty() {
            let names: Vec<&str> = conflicts
                .iter()
                .map(|id| match id {
                    Some(id) => self.world.components().get_name(*id).unwrap_or("<unknown>"),
                    None => "every component",
                })
                .collect();
            panic!(
                "QueryBuilder for `{}`: the run-time terms conflict with the query's own on {}: \
                 one of them writes what the other reads",
                std::any::type_name::<D>(),
                names.join(", ")
            );
        }
        QueryState::from_builder(self)
    }
}
