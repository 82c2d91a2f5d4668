//! The bevy_ecs 0.20.1 paths this crate supports: each `use` below names
//! one item at the module path bevy gives it, so a port from bevy changes
//! only the crate name in its `use` lines. The modules group the paths by
//! bevy module; the test at the end names some of them in code.

// Each import must resolve; most are not used beyond that.
#![allow(unused_imports)]

/// `bevy_ecs` (crate root).
mod root {
    pub use ecs::define_label;
}

/// `bevy_ecs::archetype`.
mod archetype {
    pub use ecs::archetype::Archetype;
    pub use ecs::archetype::ArchetypeEntity;
    pub use ecs::archetype::ArchetypeGeneration;
    pub use ecs::archetype::ArchetypeId;
    pub use ecs::archetype::ArchetypeRecord;
    pub use ecs::archetype::ArchetypeRow;
    pub use ecs::archetype::Archetypes;
    pub use ecs::archetype::Edges;
}

/// `bevy_ecs::bundle`.
mod bundle {
    pub use ecs::bundle::Bundle;
    pub use ecs::bundle::BundleFromComponents;
    pub use ecs::bundle::BundleId;
    pub use ecs::bundle::BundleInfo;
    pub use ecs::bundle::Bundles;
    pub use ecs::bundle::DynamicBundle;
}

/// `bevy_ecs::change_detection`.
mod change_detection {
    pub use ecs::change_detection::ComponentTicks;
    pub use ecs::change_detection::DetectChanges;
    pub use ecs::change_detection::DetectChangesMut;
    pub use ecs::change_detection::Mut;
    pub use ecs::change_detection::Ref;
    pub use ecs::change_detection::Res;
    pub use ecs::change_detection::ResMut;
    pub use ecs::change_detection::Tick;
    pub use ecs::change_detection::CHECK_TICK_THRESHOLD;
    pub use ecs::change_detection::MAX_CHANGE_AGE;
}

/// `bevy_ecs::component`.
mod component {
    pub use ecs::component::Component;
    pub use ecs::component::ComponentDescriptor;
    pub use ecs::component::ComponentId;
    pub use ecs::component::ComponentInfo;
    pub use ecs::component::ComponentMutability;
    pub use ecs::component::Components;
    pub use ecs::component::Immutable;
    pub use ecs::component::Mutable;
    pub use ecs::component::RequiredComponent;
    pub use ecs::component::RequiredComponentConstructor;
    pub use ecs::component::StorageType;
}

/// `bevy_ecs::entity`.
mod entity {
    pub use ecs::entity::Entities;
    pub use ecs::entity::Entity;
    pub use ecs::entity::EntityLocation;
    pub use ecs::entity::EntityNotSpawnedError;
    pub use ecs::entity::EntityValidButNotSpawnedError;
    pub use ecs::entity::InvalidEntityError;
}

/// `bevy_ecs::event`.
mod event {
    pub use ecs::event::EntityComponentsTrigger;
    pub use ecs::event::Event;
    pub use ecs::event::EventPattern;
    pub use ecs::event::EventPatternTrigger;
    pub use ecs::event::GlobalTrigger;
    pub use ecs::event::Trigger;
}

/// `bevy_ecs::intern`.
mod intern {
    pub use ecs::intern::Internable;
    pub use ecs::intern::Interned;
    pub use ecs::intern::Interner;
}

/// `bevy_ecs::label`.
mod label {
    pub use ecs::label::DynEq;
    pub use ecs::label::DynHash;
}

/// `bevy_ecs::lifecycle`.
mod lifecycle {
    pub use ecs::lifecycle::Add;
    pub use ecs::lifecycle::AddEvent;
    pub use ecs::lifecycle::ComponentHook;
    pub use ecs::lifecycle::ComponentHooks;
    pub use ecs::lifecycle::Despawn;
    pub use ecs::lifecycle::DespawnEvent;
    pub use ecs::lifecycle::Discard;
    pub use ecs::lifecycle::DiscardEvent;
    pub use ecs::lifecycle::HookContext;
    pub use ecs::lifecycle::Insert;
    pub use ecs::lifecycle::InsertEvent;
    pub use ecs::lifecycle::Remove;
    pub use ecs::lifecycle::RemoveEvent;
}

/// `bevy_ecs::name`.
mod name {
    pub use ecs::name::HashedStr;
    pub use ecs::name::Name;
    pub use ecs::name::NameOrEntity;
    pub use ecs::name::NameOrEntityItem;
}

/// `bevy_ecs::observer`.
mod observer {
    pub use ecs::observer::IntoObserver;
    pub use ecs::observer::ObservedBy;
    pub use ecs::observer::On;
}

/// `bevy_ecs::query`.
mod query {
    pub use ecs::query::Access;
    pub use ecs::query::AccessFilters;
    pub use ecs::query::Added;
    pub use ecs::query::AnyOf;
    pub use ecs::query::Changed;
    pub use ecs::query::FilteredAccess;
    pub use ecs::query::FilteredAccessSet;
    pub use ecs::query::Has;
    pub use ecs::query::Or;
    pub use ecs::query::QueryData;
    pub use ecs::query::QueryEntityError;
    pub use ecs::query::QueryFilter;
    pub use ecs::query::QueryItem;
    pub use ecs::query::QueryIter;
    pub use ecs::query::QueryParIter;
    pub use ecs::query::QuerySingleError;
    pub use ecs::query::QueryState;
    pub use ecs::query::ROQueryItem;
    pub use ecs::query::ReadFetch;
    pub use ecs::query::ReadOnlyQueryData;
    pub use ecs::query::With;
    pub use ecs::query::Without;
    pub use ecs::query::WorldQuery;
}

/// `bevy_ecs::resource`.
mod resource {
    pub use ecs::resource::Resource;
}

/// `bevy_ecs::schedule`.
mod schedule {
    pub use ecs::schedule::Chain;
    pub use ecs::schedule::DynEq;
    pub use ecs::schedule::GraphInfo;
    pub use ecs::schedule::InternedScheduleLabel;
    pub use ecs::schedule::IntoScheduleConfigs;
    pub use ecs::schedule::NodeId;
    pub use ecs::schedule::Schedulable;
    pub use ecs::schedule::Schedule;
    pub use ecs::schedule::ScheduleCleanupPolicy;
    pub use ecs::schedule::ScheduleConfig;
    pub use ecs::schedule::ScheduleConfigs;
    pub use ecs::schedule::ScheduleError;
    pub use ecs::schedule::ScheduleLabel;
    pub use ecs::schedule::Schedules;
    pub use ecs::schedule::SystemKey;
}

/// `bevy_ecs::storage`.
mod storage {
    pub use ecs::storage::Column;
    pub use ecs::storage::ComponentSparseSet;
    pub use ecs::storage::SparseSet;
    pub use ecs::storage::SparseSetIndex;
    pub use ecs::storage::SparseSets;
    pub use ecs::storage::Storages;
    pub use ecs::storage::Table;
    pub use ecs::storage::TableId;
    pub use ecs::storage::TableRow;
    pub use ecs::storage::Tables;
}

/// `bevy_ecs::system`.
mod system {
    pub use ecs::system::assert_is_read_only_system;
    pub use ecs::system::assert_is_system;
    pub use ecs::system::assert_system_does_not_conflict;
    pub use ecs::system::lifetimeless;
    pub use ecs::system::lifetimeless::{Read, SCommands, SQuery, SRes, SResMut, Write};
    pub use ecs::system::Adapt;
    pub use ecs::system::AdapterSystem;
    pub use ecs::system::BoxedSystem;
    pub use ecs::system::CachedSystemId;
    pub use ecs::system::CombinatorSystem;
    pub use ecs::system::Combine;
    pub use ecs::system::Command;
    pub use ecs::system::Commands;
    pub use ecs::system::DynParamBuilder;
    pub use ecs::system::DynSystemParam;
    pub use ecs::system::DynSystemParamState;
    pub use ecs::system::EntityCommands;
    pub use ecs::system::FunctionSystem;
    pub use ecs::system::If;
    pub use ecs::system::IfBuilder;
    pub use ecs::system::In;
    pub use ecs::system::InMut;
    pub use ecs::system::InRef;
    pub use ecs::system::IntoAdapterSystem;
    pub use ecs::system::IntoPipeSystem;
    pub use ecs::system::IntoSystem;
    pub use ecs::system::Local;
    pub use ecs::system::OptionBuilder;
    pub use ecs::system::PipeSystem;
    pub use ecs::system::PipeSystemName;
    pub use ecs::system::Query;
    pub use ecs::system::ReadOnlySystem;
    pub use ecs::system::ReadOnlySystemParam;
    pub use ecs::system::RegisteredSystem;
    pub use ecs::system::RegisteredSystemError;
    pub use ecs::system::RemovedSystem;
    pub use ecs::system::Res;
    pub use ecs::system::ResMut;
    pub use ecs::system::ResultBuilder;
    pub use ecs::system::RunSystemError;
    pub use ecs::system::RunSystemOnce;
    pub use ecs::system::ScheduleSystem;
    pub use ecs::system::StaticSystemInput;
    pub use ecs::system::System;
    pub use ecs::system::SystemId;
    pub use ecs::system::SystemIdMarker;
    pub use ecs::system::SystemIn;
    pub use ecs::system::SystemInput;
    pub use ecs::system::SystemMeta;
    pub use ecs::system::SystemParam;
    pub use ecs::system::SystemParamFunction;
    pub use ecs::system::SystemParamItem;
    pub use ecs::system::WithInputFromWrapper;
    pub use ecs::system::WithInputWrapper;
}

/// `bevy_ecs::system::command`.
mod system_command {
    pub use ecs::system::command::run_system;
    pub use ecs::system::command::run_system_cached;
    pub use ecs::system::command::run_system_cached_with;
    pub use ecs::system::command::run_system_with;
    pub use ecs::system::command::unregister_system;
    pub use ecs::system::command::unregister_system_cached;
    pub use ecs::system::command::Command;
}

/// `bevy_ecs::world`.
mod world {
    pub use ecs::world::CommandQueue;
    pub use ecs::world::DeferredWorld;
    pub use ecs::world::EntityMutExcept;
    pub use ecs::world::EntityRef;
    pub use ecs::world::EntityRefExcept;
    pub use ecs::world::EntityWorldMut;
    pub use ecs::world::FromWorld;
    pub use ecs::world::Mut;
    pub use ecs::world::Ref;
    pub use ecs::world::SpawnBatchIter;
    pub use ecs::world::World;
    pub use ecs::world::WorldId;
    pub use ecs::world::CHECK_TICK_THRESHOLD;
}

/// `bevy_ecs::world::error`.
mod world_error {
    pub use ecs::world::error::EntityDespawnError;
    pub use ecs::world::error::EntityMutableFetchError;
    pub use ecs::world::error::TryRunScheduleError;
}

/// `bevy_ecs::world::unsafe_world_cell`.
mod world_unsafe_world_cell {
    pub use ecs::world::unsafe_world_cell::UnsafeWorldCell;
}

/// `bevy_ecs::prelude`.
mod prelude {
    pub use ecs::prelude::Add;
    pub use ecs::prelude::Added;
    pub use ecs::prelude::AnyOf;
    pub use ecs::prelude::Bundle;
    pub use ecs::prelude::Changed;
    pub use ecs::prelude::Command;
    pub use ecs::prelude::Commands;
    pub use ecs::prelude::Component;
    pub use ecs::prelude::Despawn;
    pub use ecs::prelude::DetectChanges;
    pub use ecs::prelude::DetectChangesMut;
    pub use ecs::prelude::Discard;
    pub use ecs::prelude::Entity;
    pub use ecs::prelude::EntityCommands;
    pub use ecs::prelude::EntityRef;
    pub use ecs::prelude::EntityWorldMut;
    pub use ecs::prelude::Event;
    pub use ecs::prelude::FromWorld;
    pub use ecs::prelude::Has;
    pub use ecs::prelude::If;
    pub use ecs::prelude::In;
    pub use ecs::prelude::InMut;
    pub use ecs::prelude::InRef;
    pub use ecs::prelude::Insert;
    pub use ecs::prelude::IntoScheduleConfigs;
    pub use ecs::prelude::IntoSystem;
    pub use ecs::prelude::Local;
    pub use ecs::prelude::Mut;
    pub use ecs::prelude::Name;
    pub use ecs::prelude::NameOrEntity;
    pub use ecs::prelude::On;
    pub use ecs::prelude::Or;
    pub use ecs::prelude::Query;
    pub use ecs::prelude::QueryState;
    pub use ecs::prelude::ReadOnlySystem;
    pub use ecs::prelude::Ref;
    pub use ecs::prelude::Remove;
    pub use ecs::prelude::Res;
    pub use ecs::prelude::ResMut;
    pub use ecs::prelude::Resource;
    pub use ecs::prelude::Schedule;
    pub use ecs::prelude::Schedules;
    pub use ecs::prelude::System;
    pub use ecs::prelude::SystemIn;
    pub use ecs::prelude::SystemInput;
    pub use ecs::prelude::SystemParamFunction;
    pub use ecs::prelude::With;
    pub use ecs::prelude::Without;
    pub use ecs::prelude::World;
}

use std::marker::PhantomData;

/// Compiles only when both arguments name the same type.
fn same_type<T: ?Sized>(_: PhantomData<T>, _: PhantomData<T>) {}

#[derive(component::Component, Debug, PartialEq)]
#[component(on_add = count_add)]
struct Health(u32);

/// How many `Health` values the hook has seen added.
#[derive(resource::Resource, Default)]
struct AddedCount(u32);

/// How much each run of `heal` adds.
#[derive(resource::Resource)]
struct HealRate(u32);

/// Sets the heal rate: a command written against bevy's `system::command` path.
struct SetHealRate(u32);

impl system_command::Command for SetHealRate {
    type Out = ();

    fn apply(self, world: &mut world::World) {
        world.insert_resource(HealRate(self.0));
    }
}

fn count_add(mut world: world::DeferredWorld, context: lifecycle::HookContext) {
    assert!(world.get::<Health>(context.entity).is_some());
    world.resource_mut::<AddedCount>().0 += 1;
}

fn heal(mut query: system::Query<&mut Health>, rate: change_detection::Res<HealRate>) {
    for mut health in &mut query {
        health.0 += rate.0;
    }
}

#[test]
fn bevy_paths_name_the_items_bevy_users_expect() {
    same_type(
        PhantomData::<change_detection::Res<'static, HealRate>>,
        PhantomData::<system::Res<'static, HealRate>>,
    );
    same_type(
        PhantomData::<change_detection::ResMut<'static, HealRate>>,
        PhantomData::<system::ResMut<'static, HealRate>>,
    );
    same_type(
        PhantomData::<world::Mut<'static, Health>>,
        PhantomData::<change_detection::Mut<'static, Health>>,
    );
    same_type(
        PhantomData::<world::Ref<'static, Health>>,
        PhantomData::<change_detection::Ref<'static, Health>>,
    );
    same_type(
        PhantomData::<world_unsafe_world_cell::UnsafeWorldCell<'static>>,
        PhantomData::<ecs::world::UnsafeWorldCell<'static>>,
    );
    assert_eq!(
        world::CHECK_TICK_THRESHOLD,
        change_detection::CHECK_TICK_THRESHOLD
    );

    let mut world = world::World::new();
    world.init_resource::<AddedCount>();

    let mut queue = world::CommandQueue::default();
    queue.push(SetHealRate(2));
    queue.push(|world: &mut world::World| {
        world.spawn(Health(1));
    });
    queue.apply(&mut world);
    assert_eq!(world.resource::<AddedCount>().0, 1);

    let mut schedule = schedule::Schedule::default();
    schedule.add_systems(heal);
    schedule.run(&mut world);
    let mut query = world.query::<(entity::Entity, &Health)>();
    let (entity, health) = query.single(&world).expect("one entity spawned");
    assert_eq!(health, &Health(3));

    {
        let mut health: world::Mut<Health> = world.get_mut(entity).expect("still alive");
        health.0 = 10;
        assert!(change_detection::DetectChanges::is_changed(&health));
    }
    assert_eq!(world.get::<Health>(entity), Some(&Health(10)));

    let id = world.id();
    let cell = world_unsafe_world_cell::UnsafeWorldCell::new_readonly(&world);
    assert_eq!(cell.id(), id);
}

/// `bevy_ecs::schedule`: run conditions.
mod schedule_condition {
    pub use ecs::schedule::common_conditions;
    pub use ecs::schedule::AndEager;
    pub use ecs::schedule::AndEagerMarker;
    pub use ecs::schedule::AndThen;
    pub use ecs::schedule::AndThenMarker;
    pub use ecs::schedule::BoxedCondition;
    pub use ecs::schedule::NandEager;
    pub use ecs::schedule::NandEagerMarker;
    pub use ecs::schedule::NandThen;
    pub use ecs::schedule::NandThenMarker;
    pub use ecs::schedule::NorEager;
    pub use ecs::schedule::NorEagerMarker;
    pub use ecs::schedule::NorElse;
    pub use ecs::schedule::NorElseMarker;
    pub use ecs::schedule::NotMarker;
    pub use ecs::schedule::NotSystem;
    pub use ecs::schedule::OrEager;
    pub use ecs::schedule::OrEagerMarker;
    pub use ecs::schedule::OrElse;
    pub use ecs::schedule::OrElseMarker;
    pub use ecs::schedule::SystemCondition;
    pub use ecs::schedule::Xnor;
    pub use ecs::schedule::XnorMarker;
    pub use ecs::schedule::Xor;
    pub use ecs::schedule::XorMarker;
}

/// `bevy_ecs::schedule::common_conditions`.
mod schedule_common_conditions {
    pub use ecs::schedule::common_conditions::any_match_filter;
    pub use ecs::schedule::common_conditions::any_with_component;
    pub use ecs::schedule::common_conditions::condition_changed;
    pub use ecs::schedule::common_conditions::condition_changed_to;
    pub use ecs::schedule::common_conditions::not;
    pub use ecs::schedule::common_conditions::resource_added;
    pub use ecs::schedule::common_conditions::resource_changed;
    pub use ecs::schedule::common_conditions::resource_changed_or_removed;
    pub use ecs::schedule::common_conditions::resource_equals;
    pub use ecs::schedule::common_conditions::resource_exists;
    pub use ecs::schedule::common_conditions::resource_exists_and;
    pub use ecs::schedule::common_conditions::resource_exists_and_changed;
    pub use ecs::schedule::common_conditions::resource_exists_and_equals;
    pub use ecs::schedule::common_conditions::resource_removed;
    pub use ecs::schedule::common_conditions::run_once;
}

/// `bevy_ecs::prelude`: run conditions.
mod prelude_conditions {
    pub use ecs::prelude::any_match_filter;
    pub use ecs::prelude::any_with_component;
    pub use ecs::prelude::condition_changed;
    pub use ecs::prelude::condition_changed_to;
    pub use ecs::prelude::not;
    pub use ecs::prelude::resource_added;
    pub use ecs::prelude::resource_changed;
    pub use ecs::prelude::resource_changed_or_removed;
    pub use ecs::prelude::resource_equals;
    pub use ecs::prelude::resource_exists;
    pub use ecs::prelude::resource_exists_and;
    pub use ecs::prelude::resource_exists_and_changed;
    pub use ecs::prelude::resource_exists_and_equals;
    pub use ecs::prelude::resource_removed;
    pub use ecs::prelude::run_once;
    pub use ecs::prelude::SystemCondition;
}

/// `bevy_ecs::error`, and the fallible-system items of `bevy_ecs::system`
/// and `bevy_ecs::prelude`.
mod fallible {
    pub use ecs::bail;
    pub use ecs::bevy_error;
    pub use ecs::ensure;
    pub use ecs::error::debug;
    pub use ecs::error::error;
    pub use ecs::error::ignore;
    pub use ecs::error::info;
    pub use ecs::error::match_severity;
    pub use ecs::error::panic;
    pub use ecs::error::trace;
    pub use ecs::error::warn;
    pub use ecs::error::BevyError;
    pub use ecs::error::CommandOutput;
    pub use ecs::error::ContextExt;
    pub use ecs::error::ErrorContext;
    pub use ecs::error::ErrorHandler;
    pub use ecs::error::FallbackErrorHandler;
    pub use ecs::error::Result;
    pub use ecs::error::ResultSeverityExt;
    pub use ecs::error::Severity;
    pub use ecs::prelude::BevyError as PreludeBevyError;
    pub use ecs::prelude::ContextExt as PreludeContextExt;
    pub use ecs::prelude::Result as PreludeResult;
    pub use ecs::prelude::ResultSeverityExt as PreludeResultSeverityExt;
    pub use ecs::prelude::Severity as PreludeSeverity;
    pub use ecs::system::IntoResult;
    pub use ecs::system::RunSystemError;
    pub use ecs::system::SystemParamValidationError;
}

/// `bevy_ecs::event`, `observer` and `traversal`: entity events and
/// observers as values.
mod entity_events {
    pub use ecs::event::EntityComponentsTrigger;
    pub use ecs::event::EntityEvent;
    pub use ecs::event::EntityTrigger;
    pub use ecs::event::GlobalTrigger;
    pub use ecs::event::PropagateEntityTrigger;
    pub use ecs::event::SetEntityEventTarget;
    pub use ecs::event::Trigger;
    pub use ecs::observer::IntoEntityObserver;
    pub use ecs::observer::Observer;
    pub use ecs::observer::ObserverDescriptor;
    pub use ecs::prelude::EntityEvent as PreludeEntityEvent;
    pub use ecs::prelude::Observer as PreludeObserver;
    pub use ecs::traversal::Traversal;
}

/// `bevy_ecs::message`, its prelude items and `on_message`.
mod message {
    pub use ecs::message::message_update_condition;
    pub use ecs::message::message_update_system;
    pub use ecs::message::signal_message_update_system;
    pub use ecs::message::Message;
    pub use ecs::message::MessageCursor;
    pub use ecs::message::MessageId;
    pub use ecs::message::MessageIterator;
    pub use ecs::message::MessageIteratorWithId;
    pub use ecs::message::MessageMutIterator;
    pub use ecs::message::MessageMutIteratorWithId;
    pub use ecs::message::MessageMutParIter;
    pub use ecs::message::MessageMutator;
    pub use ecs::message::MessageParIter;
    pub use ecs::message::MessageReader;
    pub use ecs::message::MessageRegistry;
    pub use ecs::message::MessageUpdateSystems;
    pub use ecs::message::MessageWriter;
    pub use ecs::message::Messages;
    pub use ecs::message::ShouldUpdateMessages;
    pub use ecs::message::WriteBatchIds;
    pub use ecs::prelude::on_message;
    pub use ecs::prelude::Message as PreludeMessage;
    pub use ecs::prelude::MessageMutator as PreludeMessageMutator;
    pub use ecs::prelude::MessageReader as PreludeMessageReader;
    pub use ecs::prelude::MessageWriter as PreludeMessageWriter;
    pub use ecs::prelude::Messages as PreludeMessages;
    pub use ecs::schedule::common_conditions::on_message as common_on_message;
}

/// `bevy_ecs::relationship`, `hierarchy` and `spawn`, with their prelude
/// items and macros.
mod relationships {
    pub use ecs::children;
    pub use ecs::hierarchy::ChildOf;
    pub use ecs::hierarchy::ChildSpawner;
    pub use ecs::hierarchy::ChildSpawnerCommands;
    pub use ecs::hierarchy::Children;
    pub use ecs::prelude::children as prelude_children;
    pub use ecs::prelude::related as prelude_related;
    pub use ecs::prelude::ChildOf as PreludeChildOf;
    pub use ecs::prelude::ChildSpawner as PreludeChildSpawner;
    pub use ecs::prelude::ChildSpawnerCommands as PreludeChildSpawnerCommands;
    pub use ecs::prelude::Children as PreludeChildren;
    pub use ecs::prelude::RelationshipTarget as PreludeRelationshipTarget;
    pub use ecs::prelude::Spawn as PreludeSpawn;
    pub use ecs::prelude::SpawnIter as PreludeSpawnIter;
    pub use ecs::prelude::SpawnRelated as PreludeSpawnRelated;
    pub use ecs::prelude::SpawnWith as PreludeSpawnWith;
    pub use ecs::prelude::WithOneRelated as PreludeWithOneRelated;
    pub use ecs::prelude::WithRelated as PreludeWithRelated;
    pub use ecs::related;
    pub use ecs::relationship::AncestorIter;
    pub use ecs::relationship::DescendantDepthFirstIter;
    pub use ecs::relationship::DescendantIter;
    pub use ecs::relationship::OrderedRelationshipSourceCollection;
    pub use ecs::relationship::RelatedSpawner;
    pub use ecs::relationship::RelatedSpawnerCommands;
    pub use ecs::relationship::Relationship;
    pub use ecs::relationship::RelationshipSourceCollection;
    pub use ecs::relationship::RelationshipTarget;
    pub use ecs::relationship::SourceIter;
    pub use ecs::spawn::Spawn;
    pub use ecs::spawn::SpawnIter;
    pub use ecs::spawn::SpawnOneRelated;
    pub use ecs::spawn::SpawnRelated;
    pub use ecs::spawn::SpawnRelatedBundle;
    pub use ecs::spawn::SpawnWith;
    pub use ecs::spawn::SpawnableList;
    pub use ecs::spawn::WithOneRelated;
    pub use ecs::spawn::WithRelated;
    pub use ecs::traversal::Traversal;
}

/// Reads `Health` through bevy's item aliases.
fn health_of(item: query::ROQueryItem<'_, '_, &mut Health>) -> u32 {
    item.0
}

#[test]
fn item_aliases_and_lifetimeless_params_name_the_types_bevy_gives() {
    same_type(
        PhantomData::<query::QueryItem<'static, 'static, &mut Health>>,
        PhantomData::<world::Mut<'static, Health>>,
    );
    same_type(
        PhantomData::<query::ROQueryItem<'static, 'static, (&mut Health, entity::Entity)>>,
        PhantomData::<(&'static Health, entity::Entity)>,
    );
    same_type(
        PhantomData::<system::SQuery<system::Read<Health>>>,
        PhantomData::<system::Query<'static, 'static, &'static Health>>,
    );
    same_type(
        PhantomData::<system::SQuery<system::Write<Health>, ecs::query::With<Health>>>,
        PhantomData::<system::Query<'static, 'static, &'static mut Health, ecs::query::With<Health>>>,
    );
    same_type(
        PhantomData::<system::SResMut<HealRate>>,
        PhantomData::<system::ResMut<'static, HealRate>>,
    );
    same_type(
        PhantomData::<system::SCommands>,
        PhantomData::<system::Commands<'static, 'static>>,
    );

    let mut world = world::World::new();
    world.init_resource::<AddedCount>();
    world.insert_resource(HealRate(4));
    world.spawn(Health(5));
    let mut state = ecs::system::SystemState::<(
        system::SQuery<system::Read<Health>>,
        system::SRes<HealRate>,
    )>::new(&mut world);
    let (query, rate) = state.get(&world);
    let total: u32 = query.iter().map(|h| h.0 * rate.0).sum();
    assert_eq!(total, 20);
    let mut read = world.query::<&Health>();
    assert_eq!(read.iter(&world).map(health_of_ref).sum::<u32>(), 5);
    let mut write = world.query::<&mut Health>();
    for item in write.iter(&world) {
        assert_eq!(health_of(item), 5);
    }
}

fn health_of_ref(health: &Health) -> u32 {
    health.0
}
