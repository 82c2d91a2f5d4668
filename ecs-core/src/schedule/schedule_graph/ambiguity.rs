//! Ambiguities: systems whose access conflicts with no ordering between
//! them, which this crate's executor runs in the order they were added,
//! and the ways a schedule accepts them.

use std::collections::BTreeSet;

use super::{ScheduleGraph, SystemKey};
use crate::component::{ComponentId, Components};
use crate::schedule::config::Ambiguity;
use crate::schedule::set::InternedSystemSet;
use crate::schedule::ApplyDeferred;
use crate::system::ScheduleSystem;

/// Pairs of systems whose access conflicts and that have no ordering
/// between them, in the order they run (the executor runs the first of
/// each pair first, every time), with the components and resources they
/// conflict on (empty: the whole world, as an exclusive system).
#[derive(Debug, Clone, Default)]
pub struct ConflictingSystems(pub Vec<(SystemKey, SystemKey, Box<[ComponentId]>)>);

impl std::ops::Deref for ConflictingSystems {
    type Target = Vec<(SystemKey, SystemKey, Box<[ComponentId]>)>;

    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl ScheduleGraph {
    /// The pairs of systems with conflicting access and no ordering, as of
    /// the latest build ([`Schedule::initialize`](crate::schedule::Schedule::initialize));
    /// this crate's executor runs each pair in the order listed. Systems
    /// that accept the conflict (`ambiguous_with`, `ambiguous_with_all`)
    /// are left out.
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Resource, Default)]
    /// struct Score(u32);
    ///
    /// fn add_one(mut s: ResMut<Score>) { s.0 += 1; }
    /// fn double(mut s: ResMut<Score>) { s.0 *= 2; }
    /// fn show(s: Res<Score>) {}
    ///
    /// let mut world = World::new();
    /// world.init_resource::<Score>();
    /// let mut schedule = Schedule::default();
    /// schedule.add_systems((add_one, double, show.after(double)));
    /// schedule.initialize(&mut world).unwrap();
    /// let graph = schedule.graph();
    /// let pairs: Vec<String> = graph
    ///     .conflicting_systems()
    ///     .iter()
    ///     .map(|&(a, b, _)| format!("{} then {}", graph.system_name(a), graph.system_name(b)))
    ///     .collect();
    /// // `show` is ordered after `double` only: `add_one` then `show` is implied too.
    /// assert_eq!(pairs.len(), 2);
    /// assert!(pairs[0].contains("add_one then") && pairs[0].ends_with("::double"));
    /// assert!(pairs[1].contains("add_one then") && pairs[1].ends_with("::show"));
    /// ```
    pub fn conflicting_systems(&self) -> &ConflictingSystems {
        &self.conflicting_systems
    }

    /// One line naming a conflicting pair and what they conflict on.
    pub(crate) fn describe_conflict(
        &self,
        a: SystemKey,
        b: SystemKey,
        on: &[ComponentId],
        components: &Components,
    ) -> String {
        let on = if on.is_empty() {
            "the whole world".to_owned()
        } else {
            on.iter()
                .map(|&id| match components.get_name(id) {
                    Some(name) => format!("`{name}`"),
                    None => format!("{id:?}"),
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!(
            "  `{}` runs before `{}` (conflict on {on})",
            self.system_name(a),
            self.system_name(b)
        )
    }

    /// Accepts conflicts between the systems of `a` and those of `b`.
    pub(crate) fn ignore_ambiguity(&mut self, a: InternedSystemSet, b: InternedSystemSet) {
        self.set_key(a);
        self.set_key(b);
        self.ignored_pairs.push((a, b));
    }

    /// Finds and records the conflicting systems with no ordering
    /// ([`Self::conflicting_systems`]), given the flattened orderings and
    /// each set's systems, in run order (`position`: each system's place
    /// in the total order).
    pub(crate) fn find_conflicts(
        &mut self,
        edges: &[(usize, usize, bool)],
        members: &[Vec<usize>],
        position: &[usize],
        ignored_components: &BTreeSet<ComponentId>,
    ) {
        let n = self.systems.len();
        let reachable = reachability(n, edges);
        let accepted = self.accepted_conflicts(members);
        let sync_point = std::any::TypeId::of::<ApplyDeferred>();
        let mut pairs = Vec::new();
        for a in 0..n {
            for b in a + 1..n {
                if reachable[a][b] || reachable[b][a] || accepted(a, b) || accepted(b, a) {
                    continue;
                }
                let (x, y) = (&self.systems[a], &self.systems[b]);
                if x.type_id() == sync_point || y.type_id() == sync_point {
                    continue;
                }
                let Some(on) = conflict(x, y, ignored_components) else {
                    continue;
                };
                let (first, second) = if position[a] < position[b] {
                    (a, b)
                } else {
                    (b, a)
                };
                pairs.push((SystemKey(first), SystemKey(second), on));
            }
        }
        drop(accepted);
        pairs.sort_by_key(|&(a, b, _)| (position[a.0], position[b.0]));
        self.conflicting_systems = ConflictingSystems(pairs);
    }

    /// Whether system `x` accepts a conflict with system `y`: a pair from
    /// `ignore_ambiguity`, or `ambiguous_with` on `x` or on a set `x` is
    /// in.
    fn accepted_conflicts<'a>(
        &'a self,
        members: &'a [Vec<usize>],
    ) -> impl Fn(usize, usize) -> bool + 'a {
        let in_set = move |set: &InternedSystemSet, system: usize| {
            members[self.set_keys[set].0].binary_search(&system).is_ok()
        };
        let mut sets_of = vec![Vec::new(); self.systems.len()];
        for (set, systems) in members.iter().enumerate() {
            for &system in systems {
                sets_of[system].push(set);
            }
        }
        let accepted_by = move |ambiguity: &Ambiguity, y: usize| match ambiguity {
            Ambiguity::Check => false,
            Ambiguity::IgnoreAll => true,
            Ambiguity::IgnoreWithSet(sets) => sets.iter().any(|set| in_set(set, y)),
        };
        move |x: usize, y: usize| {
            self.ignored_pairs
                .iter()
                .any(|(a, b)| in_set(a, x) && in_set(b, y))
                || accepted_by(&self.system_info[x].ambiguous_with, y)
                || sets_of[x]
                    .iter()
                    .any(|&set| accepted_by(&self.set_info[set].ambiguous_with, y))
        }
    }

    /// Lines naming each node put in a set directly and also through
    /// another of its sets.
    pub(crate) fn redundant_memberships(&self) -> Vec<String> {
        let mut lines = Vec::new();
        let nodes = self.node_infos();
        for (node, info) in nodes {
            for parent in &info.hierarchy {
                let parent = self.set_keys[parent].0;
                let through = info.hierarchy.iter().find(|other| {
                    let other = self.set_keys[*other].0;
                    other != parent && self.is_ancestor(parent, other)
                });
                if let Some(through) = through {
                    lines.push(format!(
                        "  {} is in {} directly and through `{through:?}`",
                        self.node_name(node),
                        self.set_name(parent)
                    ));
                }
            }
        }
        lines
    }
}

/// `reachable[a][b]`: system `a` runs before system `b` through orderings.
fn reachability(n: usize, edges: &[(usize, usize, bool)]) -> Vec<Vec<bool>> {
    let mut successors = vec![Vec::new(); n];
    for &(a, b, _) in edges {
        successors[a].push(b);
    }
    let mut reachable = vec![vec![false; n]; n];
    for (start, row) in reachable.iter_mut().enumerate() {
        let mut stack = successors[start].clone();
        while let Some(v) = stack.pop() {
            if !std::mem::replace(&mut row[v], true) {
                stack.extend_from_slice(&successors[v]);
            }
        }
    }
    reachable
}

/// What two systems conflict on, leaving out `ignored` components (empty:
/// the whole world); `None` if they do not conflict.
fn conflict(
    x: &ScheduleSystem,
    y: &ScheduleSystem,
    ignored: &BTreeSet<ComponentId>,
) -> Option<Box<[ComponentId]>> {
    if x.is_exclusive() || y.is_exclusive() {
        return Some(Box::new([]));
    }
    if x.access().is_compatible(y.access()) {
        return None;
    }
    let conflicts = x.access().get_conflicts(y.access());
    if conflicts.contains(&None) {
        return Some(Box::new([]));
    }
    let on: Box<[ComponentId]> = conflicts
        .into_iter()
        .flatten()
        .filter(|id| !ignored.contains(id))
        .collect();
    (!on.is_empty()).then_some(on)
}
