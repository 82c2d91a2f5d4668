use std::collections::BinaryHeap;

use crate::query::FilteredAccessSet;
use crate::system::BoxedSystem;

/// A step of a schedule run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Node {
    /// Run system `i`.
    System(usize),
    /// Apply the deferred work (commands) of system `i`.
    Apply(usize),
}

/// The schedule, compiled: nodes in total order, with dependency counts
/// and dependents (every edge points forward in the order).
#[derive(Debug)]
pub(crate) struct ExecutionGraph {
    /// Nodes in total order.
    pub(crate) order: Vec<Node>,
    /// For each position in `order`, how many earlier nodes must finish
    /// first.
    pub(crate) dependency_counts: Vec<usize>,
    /// For each position, the later positions waiting on it.
    pub(crate) dependents: Vec<Vec<usize>>,
    /// For each position, whether the node needs the whole world.
    pub(crate) exclusive: Vec<bool>,
}

impl ExecutionGraph {
    /// Compiles a schedule's systems and their flattened orderings
    /// (checked: no cycle). `access` is each system's access together
    /// with its run conditions'; `auto_apply` puts a system's command
    /// application before the systems ordered after it; without
    /// `apply_final`, a command application nothing is ordered after is
    /// left out (the commands stay in their system until applied).
    pub(crate) fn build(
        systems: &[BoxedSystem],
        edges: &[(usize, usize, bool)],
        access: &[FilteredAccessSet],
        auto_apply: bool,
        apply_final: bool,
    ) -> ExecutionGraph {
        let (mut nodes, mut edges) = nodes_and_edges(systems, edges, auto_apply);
        if !apply_final {
            (nodes, edges) = without_final_applies(nodes, edges);
        }
        let order = total_order(&nodes, &edges);
        let exclusive: Vec<bool> = order
            .iter()
            .map(|&v| match nodes[v] {
                Node::System(i) => systems[i].is_exclusive(),
                Node::Apply(_) => true,
            })
            .collect();
        let (dependents, dependency_counts) =
            dependents_by_position(access, &nodes, &edges, &order, &exclusive);
        ExecutionGraph {
            order: order.into_iter().map(|v| nodes[v]).collect(),
            dependency_counts,
            dependents,
            exclusive,
        }
    }

    /// The systems' indices in the total order.
    pub(crate) fn systems_in_order(&self) -> impl Iterator<Item = usize> + '_ {
        self.order.iter().filter_map(|node| match *node {
            Node::System(i) => Some(i),
            Node::Apply(_) => None,
        })
    }

    /// Each system's position among the systems in the total order.
    pub(crate) fn system_positions(&self, system_count: usize) -> Vec<usize> {
        let mut position = vec![0; system_count];
        for (p, i) in self.systems_in_order().enumerate() {
            position[i] = p;
        }
        position
    }

    pub(crate) fn describe_order(&self, systems: &[BoxedSystem]) -> Vec<String> {
        self.order
            .iter()
            .map(|node| match *node {
                Node::System(i) => systems[i].name().into_owned(),
                Node::Apply(i) => format!("apply_deferred({})", systems[i].name()),
            })
            .collect()
    }
}

/// The nodes (every system, and an apply node per system with deferred
/// work) and the edges between them: the orderings; each apply node after
/// its system, before the systems ordered after it (unless the ordering
/// ignores deferred work or `auto_apply` is off), and before every
/// [`ApplyDeferred`](super::ApplyDeferred) its system runs before.
fn nodes_and_edges(
    systems: &[BoxedSystem],
    explicit: &[(usize, usize, bool)],
    auto_apply: bool,
) -> (Vec<Node>, Vec<(usize, usize)>) {
    let mut nodes: Vec<Node> = (0..systems.len()).map(Node::System).collect();
    let mut apply_node = vec![None; systems.len()];
    for (i, system) in systems.iter().enumerate() {
        if system.has_deferred() {
            apply_node[i] = Some(nodes.len());
            nodes.push(Node::Apply(i));
        }
    }
    let mut edges: Vec<(usize, usize)> = explicit.iter().map(|&(a, b, _)| (a, b)).collect();
    for (i, apply) in apply_node.iter().enumerate() {
        if let Some(apply) = *apply {
            edges.push((i, apply));
        }
    }
    if auto_apply {
        for &(a, b, ignore) in explicit {
            if let (Some(apply), false) = (apply_node[a], ignore) {
                edges.push((apply, b));
            }
        }
    }
    let mut predecessors = vec![Vec::new(); systems.len()];
    for &(a, b, _) in explicit {
        predecessors[b].push(a);
    }
    let sync_point = std::any::TypeId::of::<super::ApplyDeferred>();
    for (d, system) in systems.iter().enumerate() {
        if system.type_id() != sync_point {
            continue;
        }
        // Every system that runs before this sync point, directly or not.
        let mut seen = vec![false; systems.len()];
        let mut stack = vec![d];
        while let Some(v) = stack.pop() {
            for &u in &predecessors[v] {
                if !std::mem::replace(&mut seen[u], true) {
                    stack.push(u);
                    if let Some(apply) = apply_node[u] {
                        edges.push((apply, d));
                    }
                }
            }
        }
    }
    edges.sort_unstable();
    edges.dedup();
    (nodes, edges)
}

/// `nodes` and `edges` without the apply nodes no edge leaves (those no
/// system or sync point waits for), the rest renumbered.
fn without_final_applies(
    nodes: Vec<Node>,
    edges: Vec<(usize, usize)>,
) -> (Vec<Node>, Vec<(usize, usize)>) {
    let mut waited_on = vec![false; nodes.len()];
    for &(a, _) in &edges {
        waited_on[a] = true;
    }
    let mut new_index = vec![usize::MAX; nodes.len()];
    let mut kept = Vec::with_capacity(nodes.len());
    for (v, node) in nodes.into_iter().enumerate() {
        if matches!(node, Node::System(_)) || waited_on[v] {
            new_index[v] = kept.len();
            kept.push(node);
        }
    }
    let edges = edges
        .into_iter()
        .filter(|&(_, b)| new_index[b] != usize::MAX)
        .map(|(a, b)| (new_index[a], new_index[b]))
        .collect();
    (kept, edges)
}

/// The nodes in total order (Kahn's algorithm): systems by the order they
/// were added, apply nodes as late as possible. The edges have no cycle.
fn total_order(nodes: &[Node], edges: &[(usize, usize)]) -> Vec<usize> {
    let node_count = nodes.len();
    let mut successors = vec![Vec::new(); node_count];
    let mut indegree = vec![0usize; node_count];
    for &(a, b) in edges {
        successors[a].push(b);
        indegree[b] += 1;
    }
    let priority = |node: usize| -> std::cmp::Reverse<(bool, usize)> {
        match nodes[node] {
            Node::System(i) => std::cmp::Reverse((false, i)),
            Node::Apply(i) => std::cmp::Reverse((true, i)),
        }
    };
    let mut ready: BinaryHeap<(std::cmp::Reverse<(bool, usize)>, usize)> = (0..node_count)
        .filter(|&v| indegree[v] == 0)
        .map(|v| (priority(v), v))
        .collect();
    let mut order = Vec::with_capacity(node_count);
    while let Some((_, v)) = ready.pop() {
        order.push(v);
        for &w in &successors[v] {
            indegree[w] -= 1;
            if indegree[w] == 0 {
                ready.push((priority(w), w));
            }
        }
    }
    assert_eq!(order.len(), node_count, "cycles were ruled out above");
    order
}

/// For each position in `order`, the later positions waiting on it (its
/// edges, plus every later node it conflicts with), and for each position
/// how many earlier ones it waits on.
fn dependents_by_position(
    access: &[FilteredAccessSet],
    nodes: &[Node],
    edges: &[(usize, usize)],
    order: &[usize],
    exclusive: &[bool],
) -> (Vec<Vec<usize>>, Vec<usize>) {
    let node_count = nodes.len();
    let mut position = vec![0; node_count];
    for (p, &v) in order.iter().enumerate() {
        position[v] = p;
    }
    let mut dependents = vec![Vec::new(); node_count];
    for &(a, b) in edges {
        dependents[position[a]].push(position[b]);
    }
    for p in 0..node_count {
        for q in p + 1..node_count {
            let conflict = exclusive[p] || exclusive[q] || {
                let (Node::System(a), Node::System(b)) = (nodes[order[p]], nodes[order[q]]) else {
                    unreachable!("non-exclusive nodes are systems")
                };
                !access[a].is_compatible(&access[b])
            };
            if conflict {
                dependents[p].push(q);
            }
        }
    }
    let mut dependency_counts = vec![0; node_count];
    for list in &mut dependents {
        list.sort_unstable();
        list.dedup();
        for &q in list.iter() {
            dependency_counts[q] += 1;
        }
    }
    (dependents, dependency_counts)
}
