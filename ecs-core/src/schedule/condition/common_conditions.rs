//! Run conditions most programs need: on resources, on components, and
//! conditions built from other conditions.
//!
//! ```
//! use ecs::prelude::*;
//!
//! #[derive(Resource)]
//! struct Paused;
//!
//! let mut world = World::new();
//! let mut running = IntoSystem::into_system(not(resource_exists::<Paused>));
//! running.initialize(&mut world);
//! assert!(running.run((), &mut world).unwrap());
//! world.insert_resource(Paused);
//! assert!(!running.run((), &mut world).unwrap());
//! ```

use super::{NotMarker, NotSystem, SystemCondition};
use crate::{
    change_detection::DetectChanges,
    component::Component,
    lifecycle::RemovedComponents,
    query::{QueryFilter, With},
    resource::Resource,
    system::{In, IntoSystem, Local, Query, Res, System, SystemInput},
};

/// A condition that is true the first time it runs and false ever
/// after.
///
/// ```
/// use ecs::prelude::*;
///
/// let mut world = World::new();
/// let mut condition = IntoSystem::into_system(run_once);
/// condition.initialize(&mut world);
/// assert!(condition.run((), &mut world).unwrap());
/// assert!(!condition.run((), &mut world).unwrap());
/// assert!(!condition.run((), &mut world).unwrap());
/// ```
pub fn run_once(mut has_run: Local<bool>) -> bool {
    !std::mem::replace(&mut *has_run, true)
}

/// A condition that is true while the resource `T` exists.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Resource)]
/// struct Score(u32);
///
/// let mut world = World::new();
/// let mut condition = IntoSystem::into_system(resource_exists::<Score>);
/// condition.initialize(&mut world);
/// assert!(!condition.run((), &mut world).unwrap());
/// world.insert_resource(Score(0));
/// assert!(condition.run((), &mut world).unwrap());
/// ```
pub fn resource_exists<T>(res: Option<Res<T>>) -> bool
where
    T: Resource,
{
    res.is_some()
}

/// A condition that is true while the resource `T` equals `value`.
///
/// # Panics
/// When it runs while `T` does not exist, naming the resource and the
/// condition; [`resource_exists_and_equals`] is false instead.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Resource, PartialEq)]
/// struct Level(u32);
///
/// let mut world = World::new();
/// world.insert_resource(Level(1));
/// let mut condition = IntoSystem::into_system(resource_equals(Level(1)));
/// condition.initialize(&mut world);
/// assert!(condition.run((), &mut world).unwrap());
/// world.insert_resource(Level(2));
/// assert!(!condition.run((), &mut world).unwrap());
/// ```
pub fn resource_equals<T>(value: T) -> impl FnMut(Res<T>) -> bool
where
    T: Resource + PartialEq,
{
    move |res: Res<T>| *res == value
}

/// A condition that is true while the resource `T` exists and equals
/// `value`; false while it does not exist.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Resource, PartialEq)]
/// struct Level(u32);
///
/// let mut world = World::new();
/// let mut condition = IntoSystem::into_system(resource_exists_and_equals(Level(1)));
/// condition.initialize(&mut world);
/// assert!(!condition.run((), &mut world).unwrap());
/// world.insert_resource(Level(1));
/// assert!(condition.run((), &mut world).unwrap());
/// ```
pub fn resource_exists_and_equals<T>(value: T) -> impl FnMut(Option<Res<T>>) -> bool
where
    T: Resource + PartialEq,
{
    move |res: Option<Res<T>>| res.is_some_and(|res| *res == value)
}

/// A condition that is true while the resource `T` exists and
/// `condition` holds for it; false while it does not exist.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Resource)]
/// struct Health(u32);
///
/// let mut world = World::new();
/// let mut dead = IntoSystem::into_system(resource_exists_and(|h: &Health| h.0 == 0));
/// dead.initialize(&mut world);
/// assert!(!dead.run((), &mut world).unwrap());
/// world.insert_resource(Health(0));
/// assert!(dead.run((), &mut world).unwrap());
/// ```
pub fn resource_exists_and<T>(condition: impl Fn(&T) -> bool) -> impl FnMut(Option<Res<T>>) -> bool
where
    T: Resource,
{
    move |res: Option<Res<T>>| res.is_some_and(|res| condition(&res))
}

/// A condition that is true when the resource `T` was added since the
/// condition last ran (on its first run: since the resource exists);
/// false while it does not exist.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Resource)]
/// struct Score(u32);
///
/// let mut world = World::new();
/// let mut condition = IntoSystem::into_system(resource_added::<Score>);
/// condition.initialize(&mut world);
/// world.insert_resource(Score(0));
/// assert!(condition.run((), &mut world).unwrap());
/// assert!(!condition.run((), &mut world).unwrap());
/// ```
pub fn resource_added<T>(res: Option<Res<T>>) -> bool
where
    T: Resource,
{
    res.is_some_and(|res| res.is_added())
}

/// A condition that is true when the resource `T` was added or
/// mutably dereferenced since the condition last ran. Writing the same
/// value again counts: values are not compared.
///
/// # Panics
/// When it runs while `T` does not exist, naming the resource and the
/// condition; [`resource_exists_and_changed`] is false instead.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Resource)]
/// struct Score(u32);
///
/// let mut world = World::new();
/// world.insert_resource(Score(0));
/// let mut condition = IntoSystem::into_system(resource_changed::<Score>);
/// condition.initialize(&mut world);
/// assert!(condition.run((), &mut world).unwrap()); // added counts as changed
/// assert!(!condition.run((), &mut world).unwrap());
/// world.resource_mut::<Score>().0 = 5;
/// assert!(condition.run((), &mut world).unwrap());
/// ```
pub fn resource_changed<T>(res: Res<T>) -> bool
where
    T: Resource,
{
    res.is_changed()
}

/// A condition that is true when the resource `T` exists and was added
/// or mutably dereferenced since the condition last ran; false while it
/// does not exist.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Resource)]
/// struct Score(u32);
///
/// let mut world = World::new();
/// let mut condition = IntoSystem::into_system(resource_exists_and_changed::<Score>);
/// condition.initialize(&mut world);
/// assert!(!condition.run((), &mut world).unwrap());
/// world.insert_resource(Score(0));
/// assert!(condition.run((), &mut world).unwrap());
/// assert!(!condition.run((), &mut world).unwrap());
/// ```
pub fn resource_exists_and_changed<T>(res: Option<Res<T>>) -> bool
where
    T: Resource,
{
    res.is_some_and(|res| res.is_changed())
}

/// A condition that is true when the resource `T` was added, mutably
/// dereferenced or removed since the condition last ran.
///
/// A removal is seen only if the condition saw the resource on an
/// earlier run.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Resource)]
/// struct Score(u32);
///
/// let mut world = World::new();
/// world.insert_resource(Score(0));
/// let mut condition = IntoSystem::into_system(resource_changed_or_removed::<Score>);
/// condition.initialize(&mut world);
/// assert!(condition.run((), &mut world).unwrap());
/// assert!(!condition.run((), &mut world).unwrap());
/// world.remove_resource::<Score>();
/// assert!(condition.run((), &mut world).unwrap());
/// assert!(!condition.run((), &mut world).unwrap());
/// ```
pub fn resource_changed_or_removed<T>(res: Option<Res<T>>, mut existed: Local<bool>) -> bool
where
    T: Resource,
{
    let existed_before = std::mem::replace(&mut *existed, res.is_some());
    match res {
        Some(res) => res.is_changed(),
        None => existed_before,
    }
}

/// A condition that is true when the resource `T` was removed since the
/// condition last ran.
///
/// A removal is seen only if the condition saw the resource on an
/// earlier run; a resource removed and inserted again between two runs
/// is not seen as removed.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Resource)]
/// struct Score(u32);
///
/// let mut world = World::new();
/// world.insert_resource(Score(0));
/// let mut condition = IntoSystem::into_system(resource_removed::<Score>);
/// condition.initialize(&mut world);
/// assert!(!condition.run((), &mut world).unwrap());
/// world.remove_resource::<Score>();
/// assert!(condition.run((), &mut world).unwrap());
/// assert!(!condition.run((), &mut world).unwrap());
/// ```
pub fn resource_removed<T>(res: Option<Res<T>>, mut existed: Local<bool>) -> bool
where
    T: Resource,
{
    let existed_before = std::mem::replace(&mut *existed, res.is_some());
    existed_before && res.is_none()
}

/// A condition that is true while any entity has a `T` component; the
/// same as [`any_match_filter::<With<T>>`](any_match_filter).
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Component)]
/// struct Enemy;
///
/// let mut world = World::new();
/// let mut condition = IntoSystem::into_system(any_with_component::<Enemy>);
/// condition.initialize(&mut world);
/// assert!(!condition.run((), &mut world).unwrap());
/// let enemy = world.spawn(Enemy).id();
/// assert!(condition.run((), &mut world).unwrap());
/// world.despawn(enemy);
/// assert!(!condition.run((), &mut world).unwrap());
/// ```
pub fn any_with_component<T: Component>(query: Query<(), With<T>>) -> bool {
    !query.is_empty()
}

/// A condition that is true while any entity matches the filter `F`.
///
/// `F` must be `'static`, as every query parameter's filter here.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Component)]
/// struct Enemy;
/// #[derive(Component)]
/// struct Boss;
///
/// let mut world = World::new();
/// world.spawn(Enemy);
/// let mut condition = IntoSystem::into_system(any_match_filter::<(With<Enemy>, With<Boss>)>);
/// condition.initialize(&mut world);
/// assert!(!condition.run((), &mut world).unwrap());
/// world.spawn((Enemy, Boss));
/// assert!(condition.run((), &mut world).unwrap());
/// ```
pub fn any_match_filter<F: QueryFilter + 'static>(query: Query<(), F>) -> bool {
    !query.is_empty()
}

/// A condition that is true when an entity lost `T` since the condition
/// last ran (see [`RemovedComponents`]); it reads the removals, so each
/// one makes it true once.
///
/// Initialising the condition starts tracking `T`'s removals.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Component)]
/// struct Shield;
///
/// let mut world = World::new();
/// let mut condition = IntoSystem::into_system(any_component_removed::<Shield>);
/// condition.initialize(&mut world);
/// let e = world.spawn(Shield).id();
/// assert!(!condition.run((), &mut world).unwrap());
/// world.entity_mut(e).remove::<Shield>();
/// assert!(condition.run((), &mut world).unwrap());
/// assert!(!condition.run((), &mut world).unwrap());
/// ```
pub fn any_component_removed<T: Component>(mut removals: RemovedComponents<T>) -> bool {
    // Reading (not `is_empty`) consumes them, so a removal counts once.
    removals.read().count() > 0
}

/// A condition (or any system whose output has [`Not`](std::ops::Not))
/// with its output inverted, named `!name`.
///
/// ```
/// use ecs::prelude::*;
///
/// fn always() -> bool {
///     true
/// }
///
/// let mut world = World::new();
/// let mut condition = IntoSystem::into_system(not(always));
/// assert!(condition.name().starts_with('!'));
/// condition.initialize(&mut world);
/// assert!(!condition.run((), &mut world).unwrap());
/// ```
pub fn not<Marker, TOut, T>(condition: T) -> NotSystem<T::System>
where
    TOut: std::ops::Not,
    T: IntoSystem<(), TOut, Marker>,
{
    let condition = IntoSystem::into_system(condition);
    let name = format!("!{}", condition.name());
    NotSystem::new(NotMarker, condition, name.into())
}

/// A condition that is true when `condition`'s value differs from its
/// value on the previous run; on the first run, when it is true (as if
/// it had been false before).
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Resource)]
/// struct Paused;
///
/// let mut world = World::new();
/// world.insert_resource(Paused);
/// let mut condition = IntoSystem::into_system(condition_changed(resource_exists::<Paused>));
/// condition.initialize(&mut world);
/// assert!(condition.run((), &mut world).unwrap()); // false -> true
/// assert!(!condition.run((), &mut world).unwrap());
/// world.remove_resource::<Paused>();
/// assert!(condition.run((), &mut world).unwrap()); // true -> false
/// assert!(!condition.run((), &mut world).unwrap());
/// ```
pub fn condition_changed<Marker, CIn, C>(condition: C) -> impl SystemCondition<(), CIn>
where
    CIn: SystemInput,
    C: SystemCondition<Marker, CIn>,
{
    IntoSystem::into_system(
        condition.pipe(|In(new): In<bool>, mut prev: Local<bool>| {
            new != std::mem::replace(&mut *prev, new)
        }),
    )
}

/// A condition that is true when `condition`'s value became `to` since
/// the previous run; on the first run, when it is true and `to` is
/// true (as if it had been false before).
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Resource)]
/// struct Paused;
///
/// let mut world = World::new();
/// let mut paused_now =
///     IntoSystem::into_system(condition_changed_to(true, resource_exists::<Paused>));
/// paused_now.initialize(&mut world);
/// assert!(!paused_now.run((), &mut world).unwrap());
/// world.insert_resource(Paused);
/// assert!(paused_now.run((), &mut world).unwrap());
/// assert!(!paused_now.run((), &mut world).unwrap());
/// world.remove_resource::<Paused>();
/// assert!(!paused_now.run((), &mut world).unwrap()); // became false, not true
/// ```
pub fn condition_changed_to<Marker, CIn, C>(to: bool, condition: C) -> impl SystemCondition<(), CIn>
where
    CIn: SystemInput,
    C: SystemCondition<Marker, CIn>,
{
    IntoSystem::into_system(condition.pipe(
        move |In(new): In<bool>, mut prev: Local<bool>| -> bool {
            let changed = new != std::mem::replace(&mut *prev, new);
            changed && new == to
        },
    ))
}

/// A condition that is true when messages of type `M` were written since
/// it last ran; it reads them with its own cursor, so each message makes
/// it true once.
///
/// To skip a system on the messages it reads itself, check
/// `reader.is_empty()` in it instead.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Message)]
/// struct Jump;
///
/// #[derive(Resource, Default)]
/// struct Jumps(u32);
///
/// let mut world = World::new();
/// world.add_message::<Jump>();
/// world.init_resource::<Jumps>();
/// let mut schedule = Schedule::default();
/// schedule.add_systems((|mut jumps: ResMut<Jumps>| jumps.0 += 1).run_if(on_message::<Jump>));
///
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Jumps>().0, 0);
/// world.write_message(Jump);
/// schedule.run(&mut world);
/// schedule.run(&mut world); // the same message does not count twice
/// assert_eq!(world.resource::<Jumps>().0, 1);
/// ```
pub fn on_message<M: crate::message::Message>(
    mut reader: crate::message::MessageReader<M>,
) -> bool {
    // Consumed, not just checked, so a message makes the condition true once.
    reader.read().count() > 0
}
