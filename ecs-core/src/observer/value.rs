//! [`Observer`]: an observer as a value, built before it is spawned.

use std::borrow::Cow;

use super::runner::{register_observer, ObserverFunction, ObserverSystem};
use crate::{
    component::{Component, ComponentHooks, ComponentId, HookContext, StorageType},
    entity::Entity,
    error::ErrorHandler,
    event::{EntityEvent, EventPattern},
    schedule::{BoxedCondition, SystemCondition},
    system::IntoSystem,
    world::{DeferredWorld, World},
};

/// An observer not yet in a world: its function, what it watches, and how
/// its errors are handled.
///
/// Spawn it (`world.spawn(observer)`, `commands.spawn(observer)`) or pass
/// it to [`World::add_observer`] to register it. An observer built with
/// [`with_entity`](Observer::with_entity) runs only for
/// [`EntityEvent`]s targeting those entities, and is despawned with the
/// last of them.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(EntityEvent)]
/// struct Open(Entity);
///
/// #[derive(Resource, Default)]
/// struct Opened(u32);
///
/// let mut world = World::new();
/// world.init_resource::<Opened>();
/// let door = world.spawn_empty().id();
/// let gate = world.spawn_empty().id();
/// let mut observer = Observer::new(|_: On<Open>, mut opened: ResMut<Opened>| opened.0 += 1);
/// observer.watch_entity(door);
/// world.spawn(observer);
/// world.trigger(Open(gate));
/// world.trigger(Open(door));
/// assert_eq!(world.resource::<Opened>().0, 1);
/// ```
///
/// Once registered, the entity holds an [`ObserverState`](super::ObserverState)
/// in place of this component (bevy keeps the `Observer` on it): the world
/// keeps the system, so that no safe access to the entity can pair it with
/// another observer's registration.
pub struct Observer {
    pending: Box<dyn PendingObserver>,
    descriptor: ObserverDescriptor,
    error_handler: Option<ErrorHandler>,
    conditions: Vec<BoxedCondition>,
}

impl Observer {
    /// An observer running `function` (first parameter [`On<P>`](super::On),
    /// then system parameters; it returns `()` or a
    /// [`Result`](crate::error::Result)) for every trigger of its pattern.
    pub fn new<P: EventPattern, M: 'static, F: ObserverFunction<P, M>>(function: F) -> Self {
        Observer {
            pending: Box::new(PendingFunction::<P, M, F> {
                function,
                marker: std::marker::PhantomData,
            }),
            descriptor: ObserverDescriptor::default(),
            error_handler: None,
            conditions: Vec::new(),
        }
    }

    /// Also watches `entity`: see [`watch_entity`](Observer::watch_entity).
    pub fn with_entity(mut self, entity: Entity) -> Self {
        self.watch_entity(entity);
        self
    }

    /// Also watches `entities`: see [`watch_entity`](Observer::watch_entity).
    pub fn with_entities<I: IntoIterator<Item = Entity>>(mut self, entities: I) -> Self {
        self.watch_entities(entities);
        self
    }

    /// Runs only for events targeting `entity` (or another watched entity)
    /// from now on: an observer watching entities runs for
    /// [`EntityEvent`]s and lifecycle events whose target is one of them.
    /// The entity must exist when the observer is registered.
    pub fn watch_entity(&mut self, entity: Entity) {
        self.descriptor.entities.push(entity);
    }

    /// Runs only for events targeting one of `entities` (or another
    /// watched entity): see [`watch_entity`](Observer::watch_entity).
    pub fn watch_entities<I: IntoIterator<Item = Entity>>(&mut self, entities: I) {
        self.descriptor.entities.extend(entities);
    }

    /// Also watches the lifecycle event for `component`, as if its pattern
    /// named it: `Observer::new(|_: On<AddEvent>| ..).with_component(id)` runs
    /// when `id` is added.
    ///
    /// # Panics
    /// On registration, if the observer's event is not a lifecycle event
    /// (only those concern components).
    pub fn with_component(mut self, component: ComponentId) -> Self {
        self.descriptor.components.push(component);
        self
    }

    /// Also watches the lifecycle event for each of `components`: see
    /// [`with_component`](Observer::with_component).
    pub fn with_components<I: IntoIterator<Item = ComponentId>>(mut self, components: I) -> Self {
        self.descriptor.components.extend(components);
        self
    }

    /// Handles this observer's errors with `error_handler` instead of the
    /// world's ([`World::fallback_error_handler`]).
    pub fn with_error_handler(mut self, error_handler: ErrorHandler) -> Self {
        self.error_handler = Some(error_handler);
        self
    }

    /// Runs the observer only when `condition` is true (and every other
    /// condition added): the conditions are evaluated for each trigger,
    /// before the observer's parameters are fetched. A condition whose
    /// parameters cannot be fetched, or which returns an error, counts as
    /// false (the error goes to the observer's error handler).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Event)]
    /// struct Ping;
    /// #[derive(Resource)]
    /// struct Enabled(bool);
    /// #[derive(Resource, Default)]
    /// struct Pings(u32);
    ///
    /// let mut world = World::new();
    /// world.insert_resource(Enabled(false));
    /// world.init_resource::<Pings>();
    /// world.add_observer(
    ///     Observer::new(|_: On<Ping>, mut pings: ResMut<Pings>| pings.0 += 1)
    ///         .run_if(|enabled: Res<Enabled>| enabled.0),
    /// );
    /// world.trigger(Ping);
    /// world.resource_mut::<Enabled>().0 = true;
    /// world.trigger(Ping);
    /// assert_eq!(world.resource::<Pings>().0, 1);
    /// ```
    pub fn run_if<M>(mut self, condition: impl SystemCondition<M>) -> Self {
        self.conditions
            .push(Box::new(IntoSystem::into_system(condition)));
        self
    }

    /// The entities and components it watches beyond its pattern.
    pub fn descriptor(&self) -> &ObserverDescriptor {
        &self.descriptor
    }

    /// The name of its function.
    pub fn system_name(&self) -> Cow<'static, str> {
        self.pending.name()
    }

    pub(super) fn into_parts(
        self,
    ) -> (
        Box<dyn PendingObserver>,
        ObserverDescriptor,
        Option<ErrorHandler>,
        Vec<BoxedCondition>,
    ) {
        (
            self.pending,
            self.descriptor,
            self.error_handler,
            self.conditions,
        )
    }
}

impl std::fmt::Debug for Observer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Observer")
            .field("system", &self.pending.name())
            .field("descriptor", &self.descriptor)
            .field(
                "conditions",
                &self.conditions.iter().map(|c| c.name()).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl Component for Observer {
    const STORAGE_TYPE: StorageType = StorageType::SparseSet;
    type Mutability = crate::component::Mutable;

    fn register_component_hooks(hooks: &mut ComponentHooks) {
        hooks.on_add(register_spawned_observer);
    }
}

fn register_spawned_observer(mut world: DeferredWorld<'_>, context: HookContext) {
    let entity = context.entity;
    // Building the system needs `&mut World` (its parameters register
    // resources and components): it happens once the spawn is done.
    world.commands().queue(move |world: &mut World| {
        let Ok(mut spawned) = world.get_entity_mut(entity) else {
            return; // despawned before registration: nothing to register
        };
        let Some(observer) = spawned.take::<Observer>() else {
            return; // taken out by the user meanwhile
        };
        register_observer(world, observer, Some(entity));
    });
}

/// What an [`Observer`] watches beyond its pattern.
#[derive(Debug, Default, Clone)]
pub struct ObserverDescriptor {
    components: Vec<ComponentId>,
    entities: Vec<Entity>,
}

impl ObserverDescriptor {
    /// The components added with [`Observer::with_component`].
    pub fn components(&self) -> &[ComponentId] {
        &self.components
    }

    /// The entities watched ([`Observer::watch_entity`]).
    pub fn entities(&self) -> &[Entity] {
        &self.entities
    }

    pub(super) fn into_parts(self) -> (Vec<ComponentId>, Vec<Entity>) {
        (self.components, self.entities)
    }
}

/// An observer's function with its pattern, its system not built yet.
pub(super) trait PendingObserver: Send + Sync + 'static {
    fn name(&self) -> Cow<'static, str>;

    /// Builds the system for `world`.
    fn init(self: Box<Self>, world: &mut World) -> Box<dyn ObserverSystem>;

    /// The type names of the pattern and of its event.
    fn pattern_name(&self) -> (&'static str, &'static str);

    /// The event type and the components its pattern names.
    fn pattern(&self, world: &mut World) -> (std::any::TypeId, Vec<ComponentId>);
}

/// Keeps a function observer's type parameters without owning them.
type PendingMarker<P, M> = fn() -> (P, M);

struct PendingFunction<P, M, F> {
    function: F,
    marker: std::marker::PhantomData<PendingMarker<P, M>>,
}

impl<P: EventPattern, M: 'static, F: ObserverFunction<P, M>> PendingObserver
    for PendingFunction<P, M, F>
{
    fn name(&self) -> Cow<'static, str> {
        Cow::Borrowed(std::any::type_name::<F>())
    }

    fn pattern_name(&self) -> (&'static str, &'static str) {
        (
            std::any::type_name::<P>(),
            std::any::type_name::<P::Event>(),
        )
    }

    fn init(self: Box<Self>, world: &mut World) -> Box<dyn ObserverSystem> {
        super::runner::build_system::<P, M, F>(self.function, world)
    }

    fn pattern(&self, world: &mut World) -> (std::any::TypeId, Vec<ComponentId>) {
        use crate::bundle::Bundle;
        let mut components = Vec::new();
        P::Components::component_ids(&mut world.components, &mut |id| components.push(id));
        (std::any::TypeId::of::<P::Event>(), components)
    }
}

/// Conversion into an [`Observer`]: an observer function, or an
/// [`Observer`] itself (see [`World::add_observer`]).
pub trait IntoObserver<Marker>: Send + 'static {
    /// The observer.
    fn into_observer(self) -> Observer;
}

impl IntoObserver<()> for Observer {
    fn into_observer(self) -> Observer {
        self
    }
}

impl<P: EventPattern, M: 'static, F: ObserverFunction<P, M>> IntoObserver<(P, M)> for F {
    fn into_observer(self) -> Observer {
        Observer::new(self)
    }
}

/// Conversion into an [`Observer`] of one entity (see
/// [`EntityWorldMut::observe`](crate::world::EntityWorldMut::observe)): an
/// observer function whose event is an [`EntityEvent`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be used as an entity observer",
    note = "entity observers require the event type to implement `EntityEvent`"
)]
pub trait IntoEntityObserver<Marker>: Send + 'static {
    /// The observer, watching `entity`.
    fn into_observer_for_entity(self, entity: Entity) -> Observer;
}

impl<P, M: 'static, F> IntoEntityObserver<(P, M)> for F
where
    P: EventPattern<Event: EntityEvent>,
    F: ObserverFunction<P, M>,
{
    fn into_observer_for_entity(self, entity: Entity) -> Observer {
        Observer::new(self).with_entity(entity)
    }
}

/// An observer function with run conditions, from
/// [`ObserverSystemExt::run_if`]: pass it wherever an observer function
/// goes ([`World::add_observer`],
/// [`EntityWorldMut::observe`](crate::world::EntityWorldMut::observe)).
pub struct ObserverWithCondition<P: EventPattern, M, F: ObserverFunction<P, M>> {
    function: F,
    conditions: Vec<BoxedCondition>,
    marker: std::marker::PhantomData<PendingMarker<P, M>>,
}

impl<P: EventPattern, M: 'static, F: ObserverFunction<P, M>> ObserverWithCondition<P, M, F> {
    /// Also requires `condition` to be true (see [`Observer::run_if`]).
    pub fn run_if<CM>(mut self, condition: impl SystemCondition<CM>) -> Self {
        self.conditions
            .push(Box::new(IntoSystem::into_system(condition)));
        self
    }

    fn into_observer_inner(self) -> Observer {
        let mut observer = Observer::new(self.function);
        observer.conditions = self.conditions;
        observer
    }
}

/// Marks the [`IntoObserver`] impls of [`ObserverWithCondition`].
#[doc(hidden)]
pub struct ObserverWithConditionMarker;

impl<P: EventPattern, M: 'static, F: ObserverFunction<P, M>>
    IntoObserver<ObserverWithConditionMarker> for ObserverWithCondition<P, M, F>
{
    fn into_observer(self) -> Observer {
        self.into_observer_inner()
    }
}

impl<P, M: 'static, F> IntoEntityObserver<ObserverWithConditionMarker>
    for ObserverWithCondition<P, M, F>
where
    P: EventPattern<Event: EntityEvent>,
    F: ObserverFunction<P, M>,
{
    fn into_observer_for_entity(self, entity: Entity) -> Observer {
        self.into_observer_inner().with_entity(entity)
    }
}

/// Run conditions on observer functions: `(|on: On<E>, ..| ..).run_if(cond)`.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(EntityEvent)]
/// struct Hit(Entity);
/// #[derive(Resource)]
/// struct Invulnerable(bool);
/// #[derive(Component)]
/// struct Health(u32);
///
/// let mut world = World::new();
/// world.insert_resource(Invulnerable(true));
/// let player = world.spawn(Health(3)).id();
/// world.entity_mut(player).observe(
///     (|hit: On<Hit>, mut health: Query<&mut Health>| health.get_mut(hit.0).unwrap().0 -= 1)
///         .run_if(|invulnerable: Res<Invulnerable>| !invulnerable.0),
/// );
/// world.trigger(Hit(player));
/// assert_eq!(world.get::<Health>(player).unwrap().0, 3);
/// world.resource_mut::<Invulnerable>().0 = false;
/// world.trigger(Hit(player));
/// assert_eq!(world.get::<Health>(player).unwrap().0, 2);
/// ```
pub trait ObserverSystemExt<P: EventPattern, M>: ObserverFunction<P, M> + Sized {
    /// The observer, run only when `condition` is true (see
    /// [`Observer::run_if`]).
    fn run_if<CM>(self, condition: impl SystemCondition<CM>) -> ObserverWithCondition<P, M, Self> {
        ObserverWithCondition {
            function: self,
            conditions: vec![Box::new(IntoSystem::into_system(condition))],
            marker: std::marker::PhantomData,
        }
    }
}

impl<P: EventPattern, M, F: ObserverFunction<P, M>> ObserverSystemExt<P, M> for F {}
