//! [`Related`]: a query over the entities related to one chosen at run
//! time.

use super::{Relation, Sources, Targets};
use crate::{
    entity::Entity,
    query::{QueryData, QueryFilter},
    system::{Query, SystemParam},
};

/// Read-only query items, as [`Query::get`] yields them.
type ReadItem<'a, D> = <<D as QueryData>::ReadOnly as QueryData>::Item<'a>;

/// A [`Query<D, F>`] over the entities related by `R` to an entity chosen
/// at run time: what flecs writes `(R, $target)` (the sources of a target)
/// or `(R, *)` with a fixed source (its targets).
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Relation)]
/// struct Likes;
/// #[derive(Component)]
/// struct Name(&'static str);
///
/// fn fans_of_bob(related: Related<Likes, &Name>, names: Query<(Entity, &Name)>) -> Vec<&'static str> {
///     let (bob, _) = names.iter().find(|(_, n)| n.0 == "bob").unwrap();
///     related.iter_sources(bob).map(|name| name.0).collect()
/// }
///
/// let mut world = World::new();
/// let bob = world.spawn(Name("bob")).id();
/// world.spawn(Name("alice")).relate::<Likes>(bob).unwrap();
/// world.spawn(Name("carol")).relate::<Likes>(bob).unwrap();
/// world.spawn_empty().relate::<Likes>(bob).unwrap(); // no Name: not matched
/// assert_eq!(world.run_system_once(fans_of_bob).unwrap(), ["alice", "carol"]);
/// ```
///
/// "Has any relation of kind `R`" needs no `Related`: it is the filter
/// `With<Targets<R>>` (a source) or `With<Sources<R>>` (a target) on any
/// query. `D` must not write `Targets<R>` or `Sources<R>` (the
/// parameter reads them), or the system panics at initialisation naming
/// the conflict.
#[derive(SystemParam)]
#[ecs(crate = crate)]
pub struct Related<'w, 's, R: Relation, D: QueryData + 'static, F: QueryFilter + 'static = ()> {
    query: Query<'w, 's, D, F>,
    sources: Query<'w, 's, &'static Sources<R>>,
    targets: Query<'w, 's, &'static Targets<R>>,
}

impl<'w, 's, R: Relation, D: QueryData + 'static, F: QueryFilter + 'static>
    Related<'w, 's, R, D, F>
{
    /// The sources relating to `target`, in the order they related (all of
    /// them, matching the query or not).
    #[inline]
    pub fn sources(&self, target: Entity) -> &[Entity] {
        self.sources.get(target).map_or(&[], |sources| sources)
    }

    /// The targets `source` relates to, in the order related (all of them,
    /// matching the query or not).
    #[inline]
    pub fn targets(&self, source: Entity) -> &[Entity] {
        self.targets.get(source).map_or(&[], |targets| targets)
    }

    /// The query's items of the sources relating to `target` that match it,
    /// in the order they related.
    pub fn iter_sources(&self, target: Entity) -> impl Iterator<Item = ReadItem<'_, D>> + '_ {
        let sources = self.sources(target);
        sources
            .iter()
            .filter_map(|&source| self.query.get(source).ok())
    }

    /// The query's items of the targets `source` relates to that match it,
    /// in the order related.
    pub fn iter_targets(&self, source: Entity) -> impl Iterator<Item = ReadItem<'_, D>> + '_ {
        let targets = self.targets(source);
        targets
            .iter()
            .filter_map(|&target| self.query.get(target).ok())
    }

    /// Calls `f` with the mutable item of every source relating to
    /// `target` that matches the query, in the order they related.
    pub fn for_each_source_mut(&mut self, target: Entity, mut f: impl FnMut(D::Item<'_>)) {
        let Self { query, sources, .. } = self;
        let Ok(sources) = sources.get(target) else {
            return;
        };
        for &source in sources.iter() {
            if let Ok(item) = query.get_mut(source) {
                f(item);
            }
        }
    }

    /// Calls `f` with the mutable item of every target `source` relates to
    /// that matches the query, in the order related.
    pub fn for_each_target_mut(&mut self, source: Entity, mut f: impl FnMut(D::Item<'_>)) {
        let Self { query, targets, .. } = self;
        let Ok(targets) = targets.get(source) else {
            return;
        };
        for &target in targets.iter() {
            if let Ok(item) = query.get_mut(target) {
                f(item);
            }
        }
    }

    /// The underlying query.
    #[inline]
    pub fn query(&self) -> &Query<'w, 's, D, F> {
        &self.query
    }

    /// The underlying query, mutably.
    #[inline]
    pub fn query_mut(&mut self) -> &mut Query<'w, 's, D, F> {
        &mut self.query
    }
}
