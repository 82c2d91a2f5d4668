//! Walking relationship trees through a [`Query`]: ancestors, descendants
//! (breadth- and depth-first), the root, the leaves and the siblings.
//!
//! Every walk is iterative (a queue or a stack on the heap), so a deep
//! tree does not overflow the call stack.

use std::collections::VecDeque;

use super::{Relationship, RelationshipTarget};
use crate::{
    entity::Entity,
    query::{QueryData, QueryFilter},
    system::Query,
};

impl<'w, 's, D: QueryData, F: QueryFilter> Query<'w, 's, D, F> {
    /// The target of `entity`'s `R`, if it has one (and matches the query).
    pub fn related<R: Relationship>(&'w self, entity: Entity) -> Option<Entity>
    where
        D::ReadOnly: QueryData<Item<'w> = &'w R>,
    {
        self.get(entity).ok().map(R::get)
    }

    /// The sources listed in `entity`'s `S`, if it has one.
    pub fn relationship_sources<S: RelationshipTarget>(
        &'w self,
        entity: Entity,
    ) -> impl Iterator<Item = Entity> + 'w
    where
        D::ReadOnly: QueryData<Item<'w> = &'w S>,
    {
        self.get(entity)
            .into_iter()
            .flat_map(RelationshipTarget::iter)
    }

    /// The last ancestor of `entity` by `R`: the first one with no `R`
    /// (`entity` itself when it has none). Loops forever on a cycle, which
    /// only a kind allowing self-reference or `set_risky` can make.
    pub fn root_ancestor<R: Relationship>(&'w self, entity: Entity) -> Entity
    where
        D::ReadOnly: QueryData<Item<'w> = &'w R>,
    {
        let mut current = entity;
        while let Ok(relationship) = self.get(current) {
            current = relationship.get();
        }
        current
    }

    /// The descendants of `entity` by `S` that have no sources themselves,
    /// depth-first.
    pub fn iter_leaves<S: RelationshipTarget>(
        &'w self,
        entity: Entity,
    ) -> impl Iterator<Item = Entity> + 'w
    where
        D::ReadOnly: QueryData<Item<'w> = &'w S>,
    {
        self.iter_descendants_depth_first(entity)
            .filter(|&e| self.get(e).map_or(true, RelationshipTarget::is_empty))
    }

    /// The other sources of `entity`'s target (`entity` excluded), in the
    /// target's order.
    pub fn iter_siblings<R: Relationship>(
        &'w self,
        entity: Entity,
    ) -> impl Iterator<Item = Entity> + 'w
    where
        D::ReadOnly: QueryData<Item<'w> = (Option<&'w R>, Option<&'w R::RelationshipTarget>)>,
    {
        self.get(entity)
            .ok()
            .and_then(|(relationship, _)| relationship)
            .and_then(|relationship| self.get(relationship.get()).ok())
            .and_then(|(_, list)| list)
            .into_iter()
            .flat_map(RelationshipTarget::iter)
            .filter(move |&e| e != entity)
    }

    /// Every descendant of `entity` by `S`, breadth-first (`entity`
    /// excluded).
    pub fn iter_descendants<S: RelationshipTarget>(
        &'w self,
        entity: Entity,
    ) -> DescendantIter<'w, 's, D, F, S>
    where
        D::ReadOnly: QueryData<Item<'w> = &'w S>,
    {
        DescendantIter::new(self, entity)
    }

    /// Every descendant of `entity` by `S`, depth-first in each list's
    /// order (`entity` excluded).
    pub fn iter_descendants_depth_first<S: RelationshipTarget>(
        &'w self,
        entity: Entity,
    ) -> DescendantDepthFirstIter<'w, 's, D, F, S>
    where
        D::ReadOnly: QueryData<Item<'w> = &'w S>,
    {
        DescendantDepthFirstIter::new(self, entity)
    }

    /// The ancestors of `entity` by `R`, nearest first (`entity`
    /// excluded). Loops forever on a cycle, which only a kind allowing
    /// self-reference or `set_risky` can make.
    pub fn iter_ancestors<R: Relationship>(
        &'w self,
        entity: Entity,
    ) -> AncestorIter<'w, 's, D, F, R>
    where
        D::ReadOnly: QueryData<Item<'w> = &'w R>,
    {
        AncestorIter::new(self, entity)
    }
}

/// The descendants of an entity, breadth-first:
/// [`Query::iter_descendants`].
pub struct DescendantIter<'w, 's, D: QueryData, F: QueryFilter, S: RelationshipTarget>
where
    D::ReadOnly: QueryData<Item<'w> = &'w S>,
{
    query: &'w Query<'w, 's, D, F>,
    queue: VecDeque<Entity>,
}

impl<'w, 's, D: QueryData, F: QueryFilter, S: RelationshipTarget> DescendantIter<'w, 's, D, F, S>
where
    D::ReadOnly: QueryData<Item<'w> = &'w S>,
{
    /// The descendants of `entity` through `query`.
    pub fn new(query: &'w Query<'w, 's, D, F>, entity: Entity) -> Self {
        DescendantIter {
            query,
            queue: query.get(entity).into_iter().flat_map(S::iter).collect(),
        }
    }
}

impl<'w, 's, D: QueryData, F: QueryFilter, S: RelationshipTarget> Iterator
    for DescendantIter<'w, 's, D, F, S>
where
    D::ReadOnly: QueryData<Item<'w> = &'w S>,
{
    type Item = Entity;

    fn next(&mut self) -> Option<Entity> {
        let entity = self.queue.pop_front()?;
        if let Ok(list) = self.query.get(entity) {
            self.queue.extend(list.iter());
        }
        Some(entity)
    }
}

/// The descendants of an entity, depth-first:
/// [`Query::iter_descendants_depth_first`].
pub struct DescendantDepthFirstIter<'w, 's, D: QueryData, F: QueryFilter, S: RelationshipTarget>
where
    D::ReadOnly: QueryData<Item<'w> = &'w S>,
{
    query: &'w Query<'w, 's, D, F>,
    /// Pending entities, the next on top (lists pushed reversed).
    stack: Vec<Entity>,
}

impl<'w, 's, D: QueryData, F: QueryFilter, S: RelationshipTarget>
    DescendantDepthFirstIter<'w, 's, D, F, S>
where
    D::ReadOnly: QueryData<Item<'w> = &'w S>,
{
    /// The descendants of `entity` through `query`.
    pub fn new(query: &'w Query<'w, 's, D, F>, entity: Entity) -> Self {
        let mut stack: Vec<Entity> = query.get(entity).into_iter().flat_map(S::iter).collect();
        stack.reverse();
        DescendantDepthFirstIter { query, stack }
    }
}

impl<'w, 's, D: QueryData, F: QueryFilter, S: RelationshipTarget> Iterator
    for DescendantDepthFirstIter<'w, 's, D, F, S>
where
    D::ReadOnly: QueryData<Item<'w> = &'w S>,
{
    type Item = Entity;

    fn next(&mut self) -> Option<Entity> {
        let entity = self.stack.pop()?;
        if let Ok(list) = self.query.get(entity) {
            let start = self.stack.len();
            self.stack.extend(list.iter());
            self.stack[start..].reverse();
        }
        Some(entity)
    }
}

/// The ancestors of an entity, nearest first: [`Query::iter_ancestors`].
pub struct AncestorIter<'w, 's, D: QueryData, F: QueryFilter, R: Relationship>
where
    D::ReadOnly: QueryData<Item<'w> = &'w R>,
{
    query: &'w Query<'w, 's, D, F>,
    next: Option<Entity>,
}

impl<'w, 's, D: QueryData, F: QueryFilter, R: Relationship> AncestorIter<'w, 's, D, F, R>
where
    D::ReadOnly: QueryData<Item<'w> = &'w R>,
{
    /// The ancestors of `entity` through `query`.
    pub fn new(query: &'w Query<'w, 's, D, F>, entity: Entity) -> Self {
        AncestorIter {
            query,
            next: Some(entity),
        }
    }
}

impl<'w, 's, D: QueryData, F: QueryFilter, R: Relationship> Iterator
    for AncestorIter<'w, 's, D, F, R>
where
    D::ReadOnly: QueryData<Item<'w> = &'w R>,
{
    type Item = Entity;

    fn next(&mut self) -> Option<Entity> {
        self.next = self.query.get(self.next?).ok().map(R::get);
        self.next
    }
}
