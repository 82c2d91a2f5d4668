//! The runtime of the `ecs` entity-component-system:
//! entities, components, storage, archetypes, bundles, queries, the
//! `World`, systems, schedules, lifecycle hooks, observers and messages.
//!
//! Depend on the facade crate `ecs` instead: it re-exports this crate and
//! the derive macros, and its crate docs are the guide (a first program,
//! how the data is laid out, a map of the modules). Start with
//! `use ecs::prelude::*;`.

extern crate self as ecs;

pub mod archetype;
pub mod batching;
pub mod bundle;
pub mod change_detection;
pub mod component;
pub mod diagnostics;
pub mod entity;
pub mod entity_disabling;
pub mod error;
pub mod event;
pub mod hierarchy;
pub mod intern;
pub mod label;
pub mod lifecycle;
pub mod message;
pub mod name;
pub mod observer;
pub mod ptr;
pub mod query;
pub mod relation;
pub mod relationship;
pub mod resource;
pub mod schedule;
pub mod spawn;
pub mod storage;
pub mod system;
pub mod traversal;
mod utils;
pub mod world;

/// The types most programs need: `use ecs::prelude::*;`.
///
/// Unlike bevy's, it has `ScheduleLabel` (trait and derive), since every
/// program that stores schedules names them; an explicit
/// `use ecs::schedule::ScheduleLabel` still works beside it.
pub mod prelude {
    pub use crate::bundle::Bundle;
    pub use crate::change_detection::{DetectChanges, DetectChangesMut, Mut, Ref};
    pub use crate::component::{Component, ComponentId, StorageType};
    pub use crate::entity::{ContainsEntity, Entity, EntityMapper};
    pub use crate::error::{BevyError, ContextExt, Result, ResultSeverityExt, Severity};
    pub use crate::event::{EntityEvent, Event, EventPattern};
    pub use crate::hierarchy::{ChildOf, ChildSpawner, ChildSpawnerCommands, Children};
    pub use crate::lifecycle::{Add, Despawn, Discard, Insert, Remove, RemovedComponents};
    pub use crate::message::{
        Message, MessageMutator, MessageReader, MessageWriter, Messages, PopulatedMessageReader,
    };
    pub use crate::name::{Name, NameOrEntity};
    pub use crate::observer::{Observer, ObserverSystemExt, On};
    pub use crate::query::Allow;
    pub use crate::query::QueryBuilder;
    pub use crate::query::{
        Added, AnyOf, Changed, Has, Or, QueryData, QueryFilter, QueryState, With, Without,
    };
    pub use crate::query::{ContiguousMut, ContiguousRef};
    pub use crate::relation::{Related, Relation, Sources, Targets};
    pub use crate::relationship::RelationshipTarget;
    pub use crate::resource::Resource;
    pub use crate::schedule::{
        common_conditions::*, ApplyDeferred, IntoScheduleConfigs, IntoSystemSet, Schedule,
        ScheduleLabel, Schedules, SystemCondition, SystemSet,
    };
    pub use crate::spawn::{
        Spawn, SpawnIter, SpawnRelated, SpawnWith, WithOneRelated, WithRelated,
    };
    pub use crate::system::EntityCommand;
    pub use crate::system::SystemParamBuilder;
    pub use crate::system::{
        Command, Commands, EntityCommands, In, InMut, InRef, IntoSystem, Local, Query,
        ReadOnlySystem, Res, ResMut, RunSystemOnce, System, SystemIn, SystemInput, SystemParam,
        SystemParamFunction,
    };
    pub use crate::system::{Deferred, If, ParamSet, Populated, Single};
    pub use crate::system::{NonSend, NonSendMut, ParallelCommands};
    pub use crate::world::EntityMut;
    pub use crate::world::{EntityRef, EntityWorldMut, FromWorld, World};
    pub use crate::world::{FilteredEntityMut, FilteredEntityRef};
    pub use crate::world::{FilteredResources, FilteredResourcesMut};
    pub use crate::{children, related};
}
