//! The systems and sets of a schedule as added, and their flattening into
//! the system-to-system orderings the executor runs by.
//!
//! ```text
//! configs ──add──▶ systems (with conditions, sets, orderings)
//!                  sets    (with conditions, parent sets, orderings)
//!                      │ flatten (at initialisation; errors leave nothing behind)
//!                      ▼
//!  hierarchy:  set ─contains─▶ set / system     (a loop or cycle is an error)
//!  orderings:  node ─before─▶ node              (a cycle, an ordering against
//!                                                an own set, or ordered sets
//!                                                sharing a system is an error)
//!  flat edges: system ─before─▶ system          (each side expanded to its systems)
//! ```

use std::collections::HashMap;

use super::condition::BoxedCondition;
use super::config::{
    Ambiguity, Chain, DependencyKind, GraphInfo, Schedulable, ScheduleConfig, ScheduleConfigs,
};
use super::error::{ScheduleBuildError, ScheduleError};
use super::set::{AnonymousSet, InternedSystemSet, IntoSystemSet, SystemSet};

mod ambiguity;

use crate::query::FilteredAccessSet;
use crate::system::ScheduleSystem;
use crate::world::World;
pub use ambiguity::ConflictingSystems;

/// A system's place in its schedule: the order it was added in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SystemKey(pub(crate) usize);

/// A set's place in its schedule: the order it was first named in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SystemSetKey(pub(crate) usize);

/// A node of a schedule's graph: a system or a set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NodeId {
    /// A system.
    System(SystemKey),
    /// A set.
    Set(SystemSetKey),
}

impl NodeId {
    /// Whether the node is a system.
    pub const fn is_system(&self) -> bool {
        matches!(self, NodeId::System(_))
    }

    /// Whether the node is a set.
    pub const fn is_set(&self) -> bool {
        matches!(self, NodeId::Set(_))
    }

    /// The system's key, or `None` for a set.
    pub const fn as_system(&self) -> Option<SystemKey> {
        match self {
            NodeId::System(key) => Some(*key),
            NodeId::Set(_) => None,
        }
    }

    /// The set's key, or `None` for a system.
    pub const fn as_set(&self) -> Option<SystemSetKey> {
        match self {
            NodeId::System(_) => None,
            NodeId::Set(key) => Some(*key),
        }
    }
}

impl From<SystemKey> for NodeId {
    fn from(key: SystemKey) -> Self {
        NodeId::System(key)
    }
}

impl From<SystemSetKey> for NodeId {
    fn from(key: SystemSetKey) -> Self {
        NodeId::Set(key)
    }
}

/// A set's run conditions and their result in the latest schedule run
/// that evaluated them (right before the first of the set's systems to
/// start, on the thread driving the run).
pub(crate) struct SetConditions {
    pub(crate) conditions: Vec<BoxedCondition>,
    /// The schedule run the result is for (0: none yet).
    pub(crate) run: u64,
    pub(crate) result: bool,
}

/// A schedule's systems and sets as added, with their sets, orderings and
/// run conditions ([`Schedule::graph`](crate::schedule::Schedule::graph)).
#[derive(Default)]
pub struct ScheduleGraph {
    pub(crate) systems: Vec<ScheduleSystem>,
    pub(crate) system_conditions: Vec<Vec<BoxedCondition>>,
    system_info: Vec<GraphInfo>,
    sets: Vec<InternedSystemSet>,
    set_info: Vec<GraphInfo>,
    pub(crate) set_conditions: Vec<SetConditions>,
    set_keys: HashMap<InternedSystemSet, SystemSetKey>,
    conflicting_systems: ConflictingSystems,
    /// Pairs of sets whose conflicts are accepted (`ignore_ambiguity`).
    ignored_pairs: Vec<(InternedSystemSet, InternedSystemSet)>,
    /// Orderings from chains: (earlier, later, ignore deferred).
    chain_edges: Vec<(NodeId, NodeId, bool)>,
    anonymous_sets: usize,
}

/// How [`ScheduleGraph`] adds one config of a node kind.
pub trait ProcessScheduleConfig: Schedulable<Metadata = GraphInfo, GroupMetadata = Chain> {
    /// Adds the node (or merges into it) and returns its id.
    #[doc(hidden)]
    fn process_config(graph: &mut ScheduleGraph, config: ScheduleConfig<Self>) -> NodeId;
}

impl ProcessScheduleConfig for ScheduleSystem {
    fn process_config(graph: &mut ScheduleGraph, config: ScheduleConfig<Self>) -> NodeId {
        graph.name_sets_of(&config.metadata);
        let key = SystemKey(graph.systems.len());
        graph.systems.push(config.node);
        graph.system_conditions.push(config.conditions);
        graph.system_info.push(config.metadata);
        NodeId::System(key)
    }
}

impl ProcessScheduleConfig for InternedSystemSet {
    fn process_config(graph: &mut ScheduleGraph, config: ScheduleConfig<Self>) -> NodeId {
        graph.name_sets_of(&config.metadata);
        let key = graph.set_key(config.node);
        let info = &mut graph.set_info[key.0];
        info.hierarchy.extend(config.metadata.hierarchy);
        info.dependencies.extend(config.metadata.dependencies);
        match (&mut info.ambiguous_with, config.metadata.ambiguous_with) {
            (_, Ambiguity::Check) | (Ambiguity::IgnoreAll, _) => {}
            (mine, Ambiguity::IgnoreAll) => *mine = Ambiguity::IgnoreAll,
            (mine @ Ambiguity::Check, theirs) => *mine = theirs,
            (Ambiguity::IgnoreWithSet(mine), Ambiguity::IgnoreWithSet(theirs)) => {
                mine.extend(theirs)
            }
        }
        graph.set_conditions[key.0]
            .conditions
            .extend(config.conditions);
        NodeId::Set(key)
    }
}

/// What [`ScheduleGraph::remove_systems_in_set`] removes besides the
/// systems, and whether it keeps the orderings that ran through them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ScheduleCleanupPolicy {
    /// Removes the set and its systems; what was ordered before them stays
    /// ordered before what was ordered after them, and the sets in the
    /// removed set move into its parents. Sets in the set stay.
    #[default]
    RemoveSetAndSystems,
    /// Removes the systems only (the set stays, empty, unless it is a
    /// system function's, which names no system any more), keeping the
    /// orderings through them.
    RemoveSystemsOnly,
    /// Removes the set and its systems, and every ordering against them,
    /// without bridging it.
    RemoveSetAndSystemsAllowBreakages,
    /// Removes the systems only, and every ordering against them, without
    /// bridging it.
    RemoveSystemsOnlyAllowBreakages,
}

/// What flattening the graph gives the executor.
pub(crate) struct Flattened {
    /// System orderings (earlier, later, ignore deferred), sorted, one per
    /// pair.
    pub(crate) edges: Vec<(usize, usize, bool)>,
    /// Per system: the sets with conditions it is in (directly or not).
    pub(crate) conditioned_sets: Vec<Vec<usize>>,
    /// Per set: its systems, sorted.
    pub(crate) members: Vec<Vec<usize>>,
}

impl ScheduleGraph {
    /// The systems, in the order they were added.
    pub fn systems(&self) -> impl Iterator<Item = (SystemKey, &ScheduleSystem)> {
        self.systems
            .iter()
            .enumerate()
            .map(|(i, system)| (SystemKey(i), system))
    }

    /// The sets named so far (configured, joined or ordered against), in
    /// the order they were first named.
    pub fn system_sets(&self) -> impl Iterator<Item = (SystemSetKey, InternedSystemSet)> + '_ {
        self.sets
            .iter()
            .enumerate()
            .map(|(i, &set)| (SystemSetKey(i), set))
    }

    /// The system of `key`.
    pub fn get_system_at(&self, key: SystemKey) -> Option<&ScheduleSystem> {
        self.systems.get(key.0)
    }

    /// The set of `key`.
    pub fn get_set_at(&self, key: SystemSetKey) -> Option<InternedSystemSet> {
        self.sets.get(key.0).copied()
    }

    /// The name of a node, as errors print it.
    pub fn node_name(&self, node: NodeId) -> String {
        match node {
            NodeId::System(key) => format!("system `{}`", self.systems[key.0].name()),
            NodeId::Set(key) => self.set_name(key.0),
        }
    }

    fn set_name(&self, set: usize) -> String {
        let set = self.sets[set];
        if set.system_type().is_some() {
            format!("the systems of `{set:?}`")
        } else {
            format!("set `{set:?}`")
        }
    }

    /// The name of the system of `key`.
    ///
    /// # Panics
    /// If the key is not of this schedule.
    pub fn system_name(&self, key: SystemKey) -> std::borrow::Cow<'static, str> {
        self.systems[key.0].name()
    }

    /// Removes every system in `set` (directly or through its sets; for a
    /// system function, its systems) and, as `policy` says, the set
    /// itself, bridging the orderings that ran through them. Returns how
    /// many systems it removed. The keys of the systems and sets after a
    /// removed one move down. Also removed: the set of each system
    /// function none of whose systems is left, and orderings against it.
    ///
    /// # Errors
    /// [`ScheduleError::SetNotFound`] if the schedule has no such set (nor
    /// system of that function); [`ScheduleError::ScheduleBuildError`] if
    /// its sets are in each other in a cycle. Either way nothing changes.
    ///
    /// # Panics
    /// If dropping a removed system or run condition panics, after the
    /// graph is left without them.
    pub fn remove_systems_in_set<M>(
        &mut self,
        set: impl IntoSystemSet<M>,
        policy: ScheduleCleanupPolicy,
    ) -> Result<usize, ScheduleError> {
        let (kept, removed) = self.remove_in_set(set.into_system_set().intern(), policy)?;
        drop(removed);
        Ok(kept.iter().filter(|&&keep| !keep).count())
    }

    /// [`ScheduleGraph::remove_systems_in_set`], returning which systems
    /// (by old index) are kept, and the removed systems and conditions,
    /// for the caller to drop.
    pub(crate) fn remove_in_set(
        &mut self,
        set: InternedSystemSet,
        policy: ScheduleCleanupPolicy,
    ) -> Result<(Vec<bool>, RemovedNodes), ScheduleError> {
        let members = self.hierarchy()?;
        let set_key = self.set_keys.get(&set).map(|key| key.0);
        let removed_systems: Vec<usize> = match (set_key, set.system_type()) {
            (Some(key), _) => members[key].clone(),
            (None, Some(system_type)) => (0..self.systems.len())
                .filter(|&i| self.systems[i].type_id() == system_type)
                .collect(),
            (None, None) => Vec::new(),
        };
        if set_key.is_none() && removed_systems.is_empty() {
            return Err(ScheduleError::SetNotFound);
        }
        let mut keep_system = vec![true; self.systems.len()];
        for &i in &removed_systems {
            keep_system[i] = false;
        }
        let (remove_set, bridge) = match policy {
            ScheduleCleanupPolicy::RemoveSetAndSystems => (true, true),
            ScheduleCleanupPolicy::RemoveSystemsOnly => (false, true),
            ScheduleCleanupPolicy::RemoveSetAndSystemsAllowBreakages => (true, false),
            ScheduleCleanupPolicy::RemoveSystemsOnlyAllowBreakages => (false, false),
        };
        // The set itself, and each system function's set left empty.
        let mut keep_set = vec![true; self.sets.len()];
        for (key, interned) in self.sets.iter().enumerate() {
            let emptied = interned.system_type().is_some()
                && !members[key].is_empty()
                && members[key].iter().all(|&i| !keep_system[i]);
            if emptied || (remove_set && Some(key) == set_key) {
                keep_set[key] = false;
            }
        }

        if bridge {
            self.bridge_removed(&members, &keep_system, &keep_set);
        }
        // Sets in a removed set move into its parents (or, breaking, out).
        let removed_parents: HashMap<InternedSystemSet, Vec<InternedSystemSet>> =
            (0..self.sets.len())
                .filter(|&key| !keep_set[key])
                .map(|key| {
                    let parents = if bridge {
                        self.set_info[key].hierarchy.clone()
                    } else {
                        Vec::new()
                    };
                    (self.sets[key], parents)
                })
                .collect();
        let is_removed = |set: &InternedSystemSet| removed_parents.contains_key(set);
        for info in self.system_info.iter_mut().chain(self.set_info.iter_mut()) {
            let mut hierarchy = Vec::with_capacity(info.hierarchy.len());
            for parent in info.hierarchy.drain(..) {
                match removed_parents.get(&parent) {
                    Some(grandparents) => hierarchy.extend(grandparents.iter().copied()),
                    None => hierarchy.push(parent),
                }
            }
            hierarchy.dedup();
            info.hierarchy = hierarchy;
            info.dependencies.retain(|d| !is_removed(&d.set));
            if let Ambiguity::IgnoreWithSet(sets) = &mut info.ambiguous_with {
                sets.retain(|s| !is_removed(s));
            }
        }
        self.ignored_pairs
            .retain(|(a, b)| !is_removed(a) && !is_removed(b));

        // Compact, renumbering the keys.
        let system_index = new_indices(&keep_system);
        let set_index = new_indices(&keep_set);
        let renumber = |node: NodeId| match node {
            NodeId::System(key) => system_index[key.0].map(|i| NodeId::System(SystemKey(i))),
            NodeId::Set(key) => set_index[key.0].map(|i| NodeId::Set(SystemSetKey(i))),
        };
        self.chain_edges = std::mem::take(&mut self.chain_edges)
            .into_iter()
            .filter_map(|(a, b, ignore)| Some((renumber(a)?, renumber(b)?, ignore)))
            .collect();
        self.chain_edges.sort_unstable();
        self.chain_edges
            .dedup_by(|later, earlier| later.0 == earlier.0 && later.1 == earlier.1);
        // Moved out, not dropped: a panicking drop must find the graph
        // whole (the caller drops them once its own state is in step).
        let removed = RemovedNodes {
            _systems: split_off_by(&mut self.systems, &keep_system),
            _conditions: split_off_by(&mut self.system_conditions, &keep_system),
            _set_conditions: split_off_by(&mut self.set_conditions, &keep_set),
        };
        split_off_by(&mut self.system_info, &keep_system);
        split_off_by(&mut self.sets, &keep_set);
        split_off_by(&mut self.set_info, &keep_set);
        self.set_keys = self
            .sets
            .iter()
            .enumerate()
            .map(|(key, &set)| (set, SystemSetKey(key)))
            .collect();
        self.conflicting_systems = ConflictingSystems::default();
        Ok((keep_system, removed))
    }

    /// Adds an ordering from each node ordered before a removed node to
    /// each node ordered after it, through chains of removed nodes: the
    /// removed systems first (an ordering against a set they are in
    /// counts), then the removed sets. An ordering that keeps the earlier
    /// side's commands keeps them across the bridge.
    fn bridge_removed(&mut self, members: &[Vec<usize>], keep_system: &[bool], keep_set: &[bool]) {
        let mut edges = self.node_edges();
        let removed = (0..self.systems.len())
            .filter(|&i| !keep_system[i])
            .map(|i| NodeId::System(SystemKey(i)))
            .chain(
                (0..self.sets.len())
                    .filter(|&key| !keep_set[key])
                    .map(|key| NodeId::Set(SystemSetKey(key))),
            );
        for node in removed.collect::<Vec<_>>() {
            let reaches = |other: NodeId| match (other, node) {
                _ if other == node => true,
                (NodeId::Set(set), NodeId::System(system)) => {
                    members[set.0].binary_search(&system.0).is_ok()
                }
                _ => false,
            };
            let before: Vec<(NodeId, bool)> = edges
                .iter()
                .filter(|&&(_, b, _)| reaches(b))
                .map(|&(a, _, ignore)| (a, ignore))
                .collect();
            let after: Vec<NodeId> = edges
                .iter()
                .filter(|&&(a, _, _)| reaches(a))
                .map(|&(_, b, _)| b)
                .collect();
            edges.retain(|&(a, b, _)| a != node && b != node);
            for &(a, ignore) in &before {
                for &b in &after {
                    // An ordering between a set and what it contains held
                    // only through an empty set: it cannot be kept.
                    if a != b && a != node && b != node && !self.nests(a, b, members) {
                        edges.push((a, b, ignore));
                        self.chain_edges.push((a, b, ignore));
                    }
                }
            }
        }
    }

    /// Whether one of `a` and `b` is in the other (which no ordering may
    /// join), as the build checks it: a system in a set that is not a
    /// system function's, or a set in another.
    fn nests(&self, a: NodeId, b: NodeId, members: &[Vec<usize>]) -> bool {
        let set_holds = |set: SystemSetKey, system: SystemKey| {
            self.sets[set.0].system_type().is_none()
                && members[set.0].binary_search(&system.0).is_ok()
        };
        match (a, b) {
            (NodeId::Set(set), NodeId::System(system))
            | (NodeId::System(system), NodeId::Set(set)) => set_holds(set, system),
            (NodeId::Set(x), NodeId::Set(y)) => {
                self.is_ancestor(x.0, y.0) || self.is_ancestor(y.0, x.0)
            }
            (NodeId::System(_), NodeId::System(_)) => false,
        }
    }

    /// The systems' indices in an order that keeps every ordering (ties
    /// by the order added), or the order added if the graph cannot be
    /// built as it stands.
    pub(crate) fn run_order(&self) -> Vec<usize> {
        let count = self.systems.len();
        self.flatten()
            .ok()
            .and_then(|flat| {
                let mut successors = vec![Vec::new(); count];
                for &(a, b, _) in &flat.edges {
                    successors[a].push(b);
                }
                topological_order(count, &successors).ok()
            })
            .unwrap_or_else(|| (0..count).collect())
    }

    /// Initialises new systems and run conditions.
    pub(crate) fn initialize(&mut self, world: &mut World) {
        for system in &mut self.systems {
            system.initialize(world);
        }
        for condition in self.system_conditions.iter_mut().flatten() {
            condition.initialize(world);
        }
        for set in &mut self.set_conditions {
            for condition in &mut set.conditions {
                condition.initialize(world);
            }
        }
    }

    /// Each system's access with its run conditions' and those of the sets
    /// with conditions it is in.
    pub(crate) fn access_with_conditions(
        &self,
        conditioned_sets: &[Vec<usize>],
    ) -> Vec<FilteredAccessSet> {
        (0..self.systems.len())
            .map(|i| {
                let mut access = self.systems[i].access().clone();
                for condition in &self.system_conditions[i] {
                    access.extend(condition.access().clone());
                }
                for &set in &conditioned_sets[i] {
                    for condition in &self.set_conditions[set].conditions {
                        access.extend(condition.access().clone());
                    }
                }
                access
            })
            .collect()
    }

    /// Adds configs (systems or sets) and their chains.
    pub(crate) fn process_configs<T: ProcessScheduleConfig>(
        &mut self,
        configs: ScheduleConfigs<T>,
    ) -> Vec<NodeId> {
        match configs {
            ScheduleConfigs::ScheduleConfig(config) => vec![T::process_config(self, config)],
            ScheduleConfigs::Configs {
                mut configs,
                collective_conditions,
                metadata,
            } => {
                if !collective_conditions.is_empty() {
                    let set = AnonymousSet::new(self.anonymous_sets).intern();
                    self.anonymous_sets += 1;
                    let key = self.set_key(set);
                    self.set_conditions[key.0]
                        .conditions
                        .extend(collective_conditions);
                    for config in &mut configs {
                        config.for_each_info(&mut |info| info.hierarchy.push(set));
                    }
                }
                let groups: Vec<Vec<NodeId>> = configs
                    .into_iter()
                    .map(|config| self.process_configs(config))
                    .collect();
                let ignore = match metadata {
                    Chain::Unchained => None,
                    Chain::Chained => Some(false),
                    Chain::ChainedIgnoreDeferred => Some(true),
                };
                if let Some(ignore) = ignore {
                    for pair in groups.windows(2) {
                        for &a in &pair[0] {
                            for &b in &pair[1] {
                                self.chain_edges.push((a, b, ignore));
                            }
                        }
                    }
                }
                groups.into_iter().flatten().collect()
            }
        }
    }

    /// The key of `set`, adding it if it is new.
    fn set_key(&mut self, set: InternedSystemSet) -> SystemSetKey {
        if let Some(&key) = self.set_keys.get(&set) {
            return key;
        }
        let key = SystemSetKey(self.sets.len());
        self.sets.push(set);
        self.set_info.push(GraphInfo::default());
        self.set_conditions.push(SetConditions {
            conditions: Vec::new(),
            run: 0,
            result: false,
        });
        self.set_keys.insert(set, key);
        key
    }

    /// Adds every set `info` names.
    fn name_sets_of(&mut self, info: &GraphInfo) {
        for &set in &info.hierarchy {
            self.set_key(set);
        }
        for dependency in &info.dependencies {
            self.set_key(dependency.set);
        }
        if let Ambiguity::IgnoreWithSet(sets) = &info.ambiguous_with {
            for &set in sets {
                self.set_key(set);
            }
        }
    }

    /// The systems of each set (sorted), the sets in each set, checking the
    /// hierarchy for loops and cycles.
    fn hierarchy(&self) -> Result<Vec<Vec<usize>>, ScheduleBuildError> {
        let set_count = self.sets.len();
        let mut child_sets = vec![Vec::new(); set_count];
        let mut members = vec![Vec::new(); set_count];
        for (set, info) in self.set_info.iter().enumerate() {
            for parent in &info.hierarchy {
                let parent = self.set_keys[parent].0;
                if parent == set {
                    return Err(ScheduleBuildError::HierarchyLoop(self.set_name(set)));
                }
                child_sets[parent].push(set);
            }
        }
        for (system, info) in self.system_info.iter().enumerate() {
            for parent in &info.hierarchy {
                members[self.set_keys[parent].0].push(system);
            }
        }
        for (set, &interned) in self.sets.iter().enumerate() {
            if let Some(system_type) = interned.system_type() {
                members[set].extend(
                    (0..self.systems.len()).filter(|&i| self.systems[i].type_id() == system_type),
                );
            }
        }
        let order = topological_order(set_count, &child_sets).map_err(|cycle| {
            ScheduleBuildError::HierarchyCycle(cycle.iter().map(|&s| self.set_name(s)).collect())
        })?;
        // Children before parents: each parent takes its children's systems.
        for &set in order.iter().rev() {
            let mut all = std::mem::take(&mut members[set]);
            for &child in &child_sets[set] {
                all.extend_from_slice(&members[child]);
            }
            all.sort_unstable();
            all.dedup();
            members[set] = all;
        }
        Ok(members)
    }

    /// Flattens the graph into system orderings, checking it.
    pub(crate) fn flatten(&self) -> Result<Flattened, ScheduleBuildError> {
        let members = self.hierarchy()?;
        let node_edges = self.node_edges();
        self.check_node_edges(&node_edges, &members)?;
        fn systems_of<'a>(node: &'a NodeId, members: &'a [Vec<usize>]) -> &'a [usize] {
            match node {
                NodeId::System(key) => std::slice::from_ref(&key.0),
                NodeId::Set(key) => &members[key.0],
            }
        }
        let targets = self.targets_through_empty_sets(&node_edges, &members);
        let mut edges: Vec<(usize, usize, bool)> = Vec::new();
        for (a, b, ignore) in &node_edges {
            let later = match b {
                NodeId::Set(set) if members[set.0].is_empty() => &targets[set.0],
                _ => systems_of(b, &members),
            };
            for &x in systems_of(a, &members) {
                for &y in later {
                    if x != y {
                        edges.push((x, y, *ignore));
                    } else if !matches!((a, b), (NodeId::System(_), _) | (_, NodeId::System(_))) {
                        // Two sets sharing this system were checked above;
                        // a set and a function's set can share it too.
                        return Err(ScheduleBuildError::SetsHaveOrderButIntersect(
                            self.node_name(*a),
                            self.node_name(*b),
                        ));
                    }
                }
            }
        }
        // One edge per pair; an ordering that keeps commands wins.
        edges.sort_unstable();
        edges.dedup_by(|later, earlier| later.0 == earlier.0 && later.1 == earlier.1);
        let mut successors = vec![Vec::new(); self.systems.len()];
        for &(a, b, _) in &edges {
            successors[a].push(b);
        }
        topological_order(self.systems.len(), &successors).map_err(|cycle| {
            ScheduleBuildError::FlatDependencyCycle(
                cycle
                    .iter()
                    .map(|&s| self.node_name(NodeId::System(SystemKey(s))))
                    .collect(),
            )
        })?;
        let mut conditioned_sets = vec![Vec::new(); self.systems.len()];
        for (set, systems) in members.iter().enumerate() {
            let has_conditions = !self.set_conditions[set].conditions.is_empty();
            if has_conditions {
                for &system in systems {
                    conditioned_sets[system].push(set);
                }
            }
        }
        Ok(Flattened {
            edges,
            conditioned_sets,
            members,
        })
    }

    /// For each set with no systems, the systems ordered after it, through
    /// any chain of further empty sets: an ordering through an empty set
    /// (`(A, Empty, C).chain()`) still orders `A` before `C`. The node
    /// orderings have no cycle (checked before).
    fn targets_through_empty_sets(
        &self,
        node_edges: &[(NodeId, NodeId, bool)],
        members: &[Vec<usize>],
    ) -> Vec<Vec<usize>> {
        let mut successors: Vec<Vec<NodeId>> = vec![Vec::new(); self.sets.len()];
        for &(a, b, _) in node_edges {
            if let NodeId::Set(set) = a {
                if members[set.0].is_empty() {
                    successors[set.0].push(b);
                }
            }
        }
        let mut targets: Vec<Option<Vec<usize>>> = vec![None; self.sets.len()];
        for start in 0..self.sets.len() {
            if !members[start].is_empty() || targets[start].is_some() {
                continue;
            }
            // Depth-first, children first, without recursion.
            let mut stack = vec![(start, false)];
            while let Some((set, expanded)) = stack.pop() {
                if targets[set].is_some() {
                    continue;
                }
                if !expanded {
                    stack.push((set, true));
                    for next in &successors[set] {
                        if let NodeId::Set(next) = next {
                            if members[next.0].is_empty() && targets[next.0].is_none() {
                                stack.push((next.0, false));
                            }
                        }
                    }
                    continue;
                }
                let mut found = Vec::new();
                for next in &successors[set] {
                    match next {
                        NodeId::System(key) => found.push(key.0),
                        NodeId::Set(next) if members[next.0].is_empty() => {
                            found.extend(targets[next.0].iter().flatten().copied())
                        }
                        NodeId::Set(next) => found.extend_from_slice(&members[next.0]),
                    }
                }
                found.sort_unstable();
                found.dedup();
                targets[set] = Some(found);
            }
        }
        targets.into_iter().map(Option::unwrap_or_default).collect()
    }

    /// Every node (systems, then sets) with what configures it.
    fn node_infos(&self) -> impl Iterator<Item = (NodeId, &GraphInfo)> {
        let systems = self.system_info.iter().enumerate();
        let sets = self.set_info.iter().enumerate();
        systems
            .map(|(i, info)| (NodeId::System(SystemKey(i)), info))
            .chain(sets.map(|(i, info)| (NodeId::Set(SystemSetKey(i)), info)))
    }

    /// Every ordering between nodes: (earlier, later, ignore deferred).
    fn node_edges(&self) -> Vec<(NodeId, NodeId, bool)> {
        let mut edges = self.chain_edges.clone();
        let infos = self.node_infos();
        for (node, info) in infos {
            for dependency in &info.dependencies {
                let other = NodeId::Set(self.set_keys[&dependency.set]);
                edges.push(match dependency.kind {
                    DependencyKind::Before => (node, other, dependency.ignore_deferred),
                    DependencyKind::After => (other, node, dependency.ignore_deferred),
                });
            }
        }
        edges
    }

    /// Checks the orderings between nodes: no node ordered against itself
    /// or a set it is in, no cycle, no ordered sets sharing a system, no
    /// ordering against a system function with no system here.
    fn check_node_edges(
        &self,
        edges: &[(NodeId, NodeId, bool)],
        members: &[Vec<usize>],
    ) -> Result<(), ScheduleBuildError> {
        let contains = |outer: NodeId, inner: NodeId| -> bool {
            match (outer, inner) {
                // A system ordered against its own function's set is
                // ordered against the function's other systems.
                (NodeId::Set(set), NodeId::System(system)) => {
                    self.sets[set.0].system_type().is_none()
                        && members[set.0].binary_search(&system.0).is_ok()
                }
                (NodeId::Set(outer), NodeId::Set(inner)) => self.is_ancestor(outer.0, inner.0),
                _ => false,
            }
        };
        for &(a, b, _) in edges {
            if a == b {
                return Err(ScheduleBuildError::DependencyLoop(self.node_name(a)));
            }
            for node in [a, b] {
                if let NodeId::Set(set) = node {
                    let interned = self.sets[set.0];
                    if interned.system_type().is_some() && members[set.0].is_empty() {
                        let other = if node == a { b } else { a };
                        return Err(ScheduleBuildError::UnknownSystem {
                            system: format!("{interned:?}"),
                            ordered: self.node_name(other),
                            before: node == b,
                        });
                    }
                }
            }
            if contains(a, b) || contains(b, a) {
                return Err(ScheduleBuildError::CrossDependency(
                    self.node_name(a),
                    self.node_name(b),
                ));
            }
            if let (NodeId::Set(x), NodeId::Set(y)) = (a, b) {
                if members[x.0]
                    .iter()
                    .any(|s| members[y.0].binary_search(s).is_ok())
                {
                    return Err(ScheduleBuildError::SetsHaveOrderButIntersect(
                        self.node_name(a),
                        self.node_name(b),
                    ));
                }
            }
        }
        let index = |node: NodeId| match node {
            NodeId::System(key) => key.0,
            NodeId::Set(key) => self.systems.len() + key.0,
        };
        let node_count = self.systems.len() + self.sets.len();
        let mut successors = vec![Vec::new(); node_count];
        for &(a, b, _) in edges {
            successors[index(a)].push(index(b));
        }
        topological_order(node_count, &successors).map_err(|cycle| {
            let node = |i: usize| {
                if i < self.systems.len() {
                    NodeId::System(SystemKey(i))
                } else {
                    NodeId::Set(SystemSetKey(i - self.systems.len()))
                }
            };
            ScheduleBuildError::DependencyCycle(
                cycle.iter().map(|&i| self.node_name(node(i))).collect(),
            )
        })?;
        Ok(())
    }

    /// Whether set `outer` contains set `inner`, directly or not.
    fn is_ancestor(&self, outer: usize, inner: usize) -> bool {
        let mut stack = vec![inner];
        let mut seen = vec![false; self.sets.len()];
        while let Some(set) = stack.pop() {
            for parent in &self.set_info[set].hierarchy {
                let parent = self.set_keys[parent].0;
                if parent == outer {
                    return true;
                }
                if !std::mem::replace(&mut seen[parent], true) {
                    stack.push(parent);
                }
            }
        }
        false
    }
}

impl<T: Schedulable<Metadata = GraphInfo, GroupMetadata = Chain>> ScheduleConfigs<T> {
    fn for_each_info(&mut self, f: &mut impl FnMut(&mut GraphInfo)) {
        match self {
            ScheduleConfigs::ScheduleConfig(config) => f(&mut config.metadata),
            ScheduleConfigs::Configs { configs, .. } => {
                configs.iter_mut().for_each(|c| c.for_each_info(f))
            }
        }
    }
}

/// For each old index, its index once the entries `keep` marks false are
/// gone (`None` for those).
fn new_indices(keep: &[bool]) -> Vec<Option<usize>> {
    let mut next = 0;
    keep.iter()
        .map(|&kept| {
            kept.then(|| {
                next += 1;
                next - 1
            })
        })
        .collect()
}

/// Keeps the entries of `items` that `keep` marks true, in order, and
/// returns the others, undropped.
fn split_off_by<T>(items: &mut Vec<T>, keep: &[bool]) -> Vec<T> {
    let mut kept = Vec::with_capacity(items.len());
    let mut removed = Vec::new();
    for (item, &keep) in std::mem::take(items).into_iter().zip(keep) {
        if keep {
            kept.push(item);
        } else {
            removed.push(item);
        }
    }
    *items = kept;
    removed
}

/// The systems and run conditions a removal took out of the graph, which
/// run user code when dropped.
pub(crate) struct RemovedNodes {
    _systems: Vec<ScheduleSystem>,
    _conditions: Vec<Vec<BoxedCondition>>,
    _set_conditions: Vec<SetConditions>,
}

/// The nodes `0..count` in an order where every edge points forward
/// (Kahn's algorithm, ties by index), or the nodes of one cycle, in order.
fn topological_order(count: usize, successors: &[Vec<usize>]) -> Result<Vec<usize>, Vec<usize>> {
    let mut indegree = vec![0usize; count];
    for list in successors {
        for &b in list {
            indegree[b] += 1;
        }
    }
    let mut ready: std::collections::BinaryHeap<std::cmp::Reverse<usize>> = (0..count)
        .filter(|&v| indegree[v] == 0)
        .map(std::cmp::Reverse)
        .collect();
    let mut order = Vec::with_capacity(count);
    while let Some(std::cmp::Reverse(v)) = ready.pop() {
        order.push(v);
        for &w in &successors[v] {
            indegree[w] -= 1;
            if indegree[w] == 0 {
                ready.push(std::cmp::Reverse(w));
            }
        }
    }
    if order.len() == count {
        return Ok(order);
    }
    Err(find_cycle(successors, &indegree))
}

/// A cycle among the nodes left with a positive indegree (each has a
/// predecessor left, so walking predecessors backwards must repeat).
fn find_cycle(successors: &[Vec<usize>], indegree: &[usize]) -> Vec<usize> {
    let mut predecessor = vec![usize::MAX; successors.len()];
    for (a, list) in successors.iter().enumerate() {
        if indegree[a] == 0 {
            continue;
        }
        for &b in list {
            if indegree[b] > 0 && predecessor[b] == usize::MAX {
                predecessor[b] = a;
            }
        }
    }
    let start = (0..successors.len())
        .find(|&v| indegree[v] > 0)
        .expect("some node is left");
    let mut seen = vec![false; successors.len()];
    let mut v = start;
    while !seen[v] {
        seen[v] = true;
        v = predecessor[v];
    }
    let mut cycle = vec![v];
    let mut u = predecessor[v];
    while u != v {
        cycle.push(u);
        u = predecessor[u];
    }
    cycle.reverse();
    cycle
}
