//! Relating and unrelating: the world functions, and the methods on
//! [`World`], [`EntityWorldMut`] and [`EntityCommands`] built on them.

use std::any::type_name;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

use super::hooks::{remove_if_empty, Side};
use super::{Relation, RelationError, Sources, Targets};
use crate::{
    entity::Entity,
    system::EntityCommands,
    utils::DropPanics,
    world::{EntityWorldMut, World},
};

/// Whether `source` relates to `target` by `R`.
fn has_edge<R: Relation>(world: &World, source: Entity, target: Entity) -> bool {
    world
        .get::<Targets<R>>(source)
        .is_some_and(|targets| targets.contains(&target))
}

/// Refuses a relation to a missing entity or (unless allowed) to itself.
fn validate<R: Relation>(
    world: &World,
    source: Entity,
    target: Entity,
) -> Result<(), RelationError> {
    let relation = type_name::<R>();
    if world.get_entity(source).is_err() {
        return Err(RelationError::MissingSource {
            relation,
            source,
            target,
        });
    }
    if world.get_entity(target).is_err() {
        return Err(RelationError::MissingTarget {
            relation,
            source,
            target,
        });
    }
    if source == target && !R::ALLOW_SELF {
        return Err(RelationError::SelfRelation {
            relation,
            entity: source,
        });
    }
    Ok(())
}

/// Relates `source` to `target` by `R` (and back, for a symmetric kind;
/// moving `source` off its current target, for an exclusive one).
pub(crate) fn relate<R: Relation>(
    world: &mut World,
    source: Entity,
    target: Entity,
) -> Result<(), RelationError> {
    validate::<R>(world, source, target)?;
    if has_edge::<R>(world, source, target) {
        return Ok(());
    }
    if R::EXCLUSIVE {
        displace::<R>(world, source);
        if R::SYMMETRIC {
            displace::<R>(world, target);
        }
        // Observers of the displacement may have despawned either side.
        validate::<R>(world, source, target)?;
    }
    let reverse = R::SYMMETRIC && source != target && !has_edge::<R>(world, target, source);
    let edges: &[(Entity, Entity)] = if reverse {
        &[(source, target), (target, source)]
    } else {
        &[(source, target)]
    };
    // A panic from an observer midway takes back every edge of this call,
    // so both sides agree and a symmetric kind stays symmetric.
    if let Err(panic) = catch_unwind(AssertUnwindSafe(|| {
        for &(from, to) in edges {
            add_edge::<R>(world, from, to);
        }
    })) {
        for &(from, to) in edges {
            remove_edge_in_place::<R>(world, from, to);
        }
        // A side inserted by this call is now empty: take it off again, so
        // `With<Targets<R>>` means "has a relation". Each removal goes
        // through whatever its observers do; the first panic is the one
        // raised.
        let mut removals = DropPanics::default();
        for &(from, to) in edges {
            removals.catch(|| remove_if_empty::<R, Targets<R>>(world, from));
            removals.catch(|| remove_if_empty::<R, Sources<R>>(world, to));
        }
        resume_unwind(panic);
    }
    Ok(())
}

/// Unrelates an exclusive kind's `source` from its current target.
fn displace<R: Relation>(world: &mut World, source: Entity) {
    let current = world
        .get::<Targets<R>>(source)
        .and_then(|targets| targets.first().copied());
    if let Some(current) = current {
        unrelate::<R>(world, source, current);
    }
}

/// Adds the edge `from -> to` to both sides: the sides that exist are
/// written in place first, then the missing ones are inserted already
/// linked, so no observer ever sees half an edge.
fn add_edge<R: Relation>(world: &mut World, from: Entity, to: Entity) {
    // An observer of an earlier edge of the same call may have despawned
    // either end; its hooks have already unlinked it.
    if world.get_entity(from).is_err() || world.get_entity(to).is_err() {
        return;
    }
    let from_has = push::<R, Targets<R>>(world, from, to);
    let to_has = push::<R, Sources<R>>(world, to, from);
    if !from_has {
        world.entity_mut(from).insert(Targets::<R>::linked(to));
    }
    if !to_has {
        // The insert's observers and commands may have undone the edge or
        // despawned `to`: link only what is still wanted.
        if !has_edge::<R>(world, from, to) {
            return;
        }
        match world.get_entity_mut(to) {
            Ok(mut to_mut) => {
                to_mut.insert(Sources::<R>::linked(from));
            }
            Err(_) => {
                remove_edge_in_place::<R>(world, from, to);
                remove_if_empty::<R, Targets<R>>(world, from);
            }
        }
    }
}

/// Appends `entity` to `owner`'s `S` if it has one; returns whether it did.
fn push<R: Relation, S: Side<R>>(world: &mut World, owner: Entity, entity: Entity) -> bool {
    match world.get_mut::<S>(owner) {
        Some(mut side) => {
            side.list_mut().entities.push(entity);
            true
        }
        None => false,
    }
}

/// Takes the edge `from -> to` out of both sides, in place (a side may be
/// left empty, which is still consistent).
fn remove_edge_in_place<R: Relation>(world: &mut World, from: Entity, to: Entity) {
    if let Some(mut targets) = world.get_mut::<Targets<R>>(from) {
        targets.list_mut().remove(to);
    }
    if let Some(mut sources) = world.get_mut::<Sources<R>>(to) {
        sources.list_mut().remove(from);
    }
}

/// Unrelates `source` from `target` (both directions, for a symmetric
/// kind); returns whether they were related.
pub(crate) fn unrelate<R: Relation>(world: &mut World, source: Entity, target: Entity) -> bool {
    let forward = has_edge::<R>(world, source, target);
    let backward = R::SYMMETRIC && has_edge::<R>(world, target, source);
    if !forward && !backward {
        return false;
    }
    remove_edge_in_place::<R>(world, source, target);
    if R::SYMMETRIC {
        remove_edge_in_place::<R>(world, target, source);
    }
    // The structural removals last: their observers see both sides agree.
    // One whose observer panics stops none of the others.
    let mut panics = DropPanics::default();
    panics.catch(|| remove_if_empty::<R, Targets<R>>(world, source));
    panics.catch(|| remove_if_empty::<R, Sources<R>>(world, target));
    if R::SYMMETRIC {
        panics.catch(|| remove_if_empty::<R, Targets<R>>(world, target));
        panics.catch(|| remove_if_empty::<R, Sources<R>>(world, source));
    }
    panics.finish();
    true
}

impl World {
    /// The targets `source` relates to by `R`, in the order related; empty
    /// if it relates to none or does not exist.
    #[inline]
    pub fn targets_of<R: Relation>(&self, source: Entity) -> &[Entity] {
        self.get::<Targets<R>>(source)
            .map_or(&[], |targets| targets)
    }

    /// The sources relating to `target` by `R`, in the order they related;
    /// empty if there are none or it does not exist.
    #[inline]
    pub fn sources_of<R: Relation>(&self, target: Entity) -> &[Entity] {
        self.get::<Sources<R>>(target)
            .map_or(&[], |sources| sources)
    }

    /// Relates `source` to `target` by `R`; see [`EntityWorldMut::relate`].
    ///
    /// # Errors
    /// If either entity does not exist, or `source == target` and `R`
    /// does not allow self-relations.
    pub fn relate<R: Relation>(
        &mut self,
        source: Entity,
        target: Entity,
    ) -> Result<(), RelationError> {
        relate::<R>(self, source, target)
    }

    /// Unrelates `source` from `target`; see [`EntityWorldMut::unrelate`].
    pub fn unrelate<R: Relation>(&mut self, source: Entity, target: Entity) -> bool {
        unrelate::<R>(self, source, target)
    }
}

impl EntityWorldMut<'_> {
    /// Relates this entity to `target` by `R`: appends `target` to this
    /// entity's [`Targets<R>`] and this entity to `target`'s
    /// [`Sources<R>`]. Relating twice is a no-op. An exclusive kind first
    /// unrelates this entity from its current target; a symmetric one
    /// relates `target` back.
    ///
    /// # Errors
    /// If `target` does not exist, or is this entity and `R` does not
    /// allow self-relations; nothing changes then.
    pub fn relate<R: Relation>(&mut self, target: Entity) -> Result<&mut Self, RelationError> {
        let source = self.id();
        self.world_scope(|world| relate::<R>(world, source, target))?;
        Ok(self)
    }

    /// Unrelates this entity from `target` (both directions, for a
    /// symmetric kind); a no-op if they are not related.
    pub fn unrelate<R: Relation>(&mut self, target: Entity) -> &mut Self {
        let source = self.id();
        self.world_scope(|world| unrelate::<R>(world, source, target));
        self
    }

    /// Unrelates this entity from every target of `R` (removes its
    /// [`Targets<R>`]).
    pub fn unrelate_all<R: Relation>(&mut self) -> &mut Self {
        self.remove::<Targets<R>>()
    }

    /// The targets this entity relates to by `R`.
    #[inline]
    pub fn relation_targets<R: Relation>(&self) -> &[Entity] {
        self.get::<Targets<R>>().map_or(&[], |targets| targets)
    }

    /// The sources relating to this entity by `R`.
    #[inline]
    pub fn relation_sources<R: Relation>(&self) -> &[Entity] {
        self.get::<Sources<R>>().map_or(&[], |sources| sources)
    }
}

impl EntityCommands<'_> {
    /// Queues [`EntityWorldMut::relate`]; a refusal (or this entity being
    /// gone) goes to the error handler, which panics by default.
    pub fn relate<R: Relation>(&mut self, target: Entity) -> &mut Self {
        let source = self.id();
        self.commands()
            .queue(move |world: &mut World| relate::<R>(world, source, target));
        self
    }

    /// Queues [`EntityWorldMut::unrelate`].
    pub fn unrelate<R: Relation>(&mut self, target: Entity) -> &mut Self {
        let source = self.id();
        self.commands().queue(move |world: &mut World| {
            unrelate::<R>(world, source, target);
        });
        self
    }

    /// Queues [`EntityWorldMut::unrelate_all`]; like
    /// [`EntityCommands::unrelate`], nothing is left to undo if the entity
    /// is gone by then (its despawn removed every relation).
    pub fn unrelate_all<R: Relation>(&mut self) -> &mut Self {
        let source = self.id();
        self.commands().queue(move |world: &mut World| {
            if let Ok(mut entity) = world.get_entity_mut(source) {
                entity.unrelate_all::<R>();
            }
        });
        self
    }
}
