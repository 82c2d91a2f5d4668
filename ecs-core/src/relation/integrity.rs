//! The relation part of [`World::check_integrity`]: every relation kind
//! used by any world registers a typed check, run on every world.

use std::any::{type_name, TypeId};
use std::collections::HashSet;
use std::sync::Mutex;

use super::{Relation, Sources, Targets};
use crate::{component::Component, entity::Entity, world::World};

/// A check of one relation kind on one world.
type Check = fn(&World) -> Result<(), String>;

/// The checks of every relation kind registered so far, in any world.
/// Global because the integrity check is type-erased and a world keeps no
/// list of the relation kinds it has seen.
static CHECKS: Mutex<Vec<(TypeId, Check)>> = Mutex::new(Vec::new());

/// Registers `R`'s check (once per kind; called when a world registers
/// `Targets<R>` or `Sources<R>`).
pub(super) fn register<R: Relation>() {
    let mut checks = CHECKS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let id = TypeId::of::<R>();
    if !checks.iter().any(|&(known, _)| known == id) {
        checks.push((id, check::<R>));
    }
}

/// Runs every registered relation check on `world`.
pub(crate) fn run_registered_checks(world: &World) -> Result<(), String> {
    let checks: Vec<Check> = CHECKS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .iter()
        .map(|&(_, check)| check)
        .collect();
    checks.into_iter().try_for_each(|check| check(world))
}

/// Every live entity holding a `C`, with its value.
fn holders<C: Component>(world: &World) -> Vec<(Entity, &C)> {
    world
        .entities_with::<C>()
        .into_iter()
        .filter_map(|entity| world.get::<C>(entity).map(|value| (entity, value)))
        .collect()
}

/// The lists hold no duplicate, and every entry names a live entity whose
/// other side lists this one back exactly once.
fn check<R: Relation>(world: &World) -> Result<(), String> {
    let relation = type_name::<R>();
    for (source, targets) in holders::<Targets<R>>(world) {
        if R::EXCLUSIVE && targets.len() > 1 {
            return Err(format!(
                "entity {source:?} of exclusive relation `{relation}` has targets {:?}",
                &**targets
            ));
        }
        check_side(
            world,
            relation,
            source,
            targets,
            "target",
            |world, target| world.sources_of::<R>(target),
        )?;
        for &target in targets.iter() {
            if target == source && !R::ALLOW_SELF {
                return Err(format!(
                    "entity {source:?} relates to itself by `{relation}`"
                ));
            }
            if R::SYMMETRIC && !world.targets_of::<R>(target).contains(&source) {
                return Err(format!(
                    "entity {source:?} relates to {target:?} by symmetric `{relation}`, not back"
                ));
            }
        }
    }
    for (target, sources) in holders::<Sources<R>>(world) {
        check_side(
            world,
            relation,
            target,
            sources,
            "source",
            |world, source| world.targets_of::<R>(source),
        )?;
    }
    Ok(())
}

/// `owner`'s `list` has no duplicate, and each entry's `other_side` lists
/// `owner` exactly once.
fn check_side(
    world: &World,
    relation: &str,
    owner: Entity,
    list: &[Entity],
    role: &str,
    other_side: impl for<'w> Fn(&'w World, Entity) -> &'w [Entity],
) -> Result<(), String> {
    let mut seen = HashSet::with_capacity(list.len());
    for &entry in list {
        if !seen.insert(entry) {
            return Err(format!(
                "entity {owner:?} lists {role} {entry:?} of `{relation}` twice"
            ));
        }
        if world.get_entity(entry).is_err() {
            return Err(format!(
                "entity {owner:?} lists {role} {entry:?} of `{relation}`, which does not exist"
            ));
        }
        let back = other_side(world, entry)
            .iter()
            .filter(|&&e| e == owner)
            .count();
        if back != 1 {
            return Err(format!(
                "entity {owner:?} lists {role} {entry:?} of `{relation}`, which lists it back {back} times"
            ));
        }
    }
    Ok(())
}
