use std::collections::BinaryHeap;

use super::SystemKey;
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
    /// Compiles a schedule's systems and their ordering constraints; panics
    /// naming the systems if a constraint names a missing system or the
    /// constraints form a cycle.
    #[track_caller]
    pub(crate) fn build(
        systems: &[BoxedSystem],
        keys: &[SystemKey],
        before: &[Vec<SystemKey>],
        after: &[Vec<SystemKey>],
        chain_edges: &[(usize, usize)],
    ) -> ExecutionGraph {
        let explicit = explicit_edges(systems, keys, before, after, chain_edges);
        check_cycles(systems, &explicit);
        let (nodes, edges) = nodes_and_edges(systems, &explicit);
        let order = total_order(&nodes, &edges);
        let exclusive: Vec<bool> = order
            .iter()
            .map(|&v| match nodes[v] {
                Node::System(i) => systems[i].is_exclusive(),
                Node::Apply(_) => true,
            })
            .collect();
        let (dependents, dependency_counts) =
            dependents_by_position(systems, &nodes, &edges, &order, &exclusive);
        ExecutionGraph {
            order: order.into_iter().map(|v| nodes[v]).collect(),
            dependency_counts,
            dependents,
            exclusive,
        }
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

/// The explicit edges between systems (chains, `before`, `after`), sorted,
/// without duplicates or self-edges.
#[track_caller]
fn explicit_edges(
    systems: &[BoxedSystem],
    keys: &[SystemKey],
    before: &[Vec<SystemKey>],
    after: &[Vec<SystemKey>],
    chain_edges: &[(usize, usize)],
) -> Vec<(usize, usize)> {
    let n = systems.len();
    let mut explicit: Vec<(usize, usize)> = chain_edges.to_vec();
    let find = |key: SystemKey, from: usize, relation: &str| -> Vec<usize> {
        let found: Vec<usize> = (0..n).filter(|&i| keys[i] == key).collect();
        if found.is_empty() {
            panic!(
                "system `{}` is ordered {relation} `{}`, which is not in this schedule",
                systems[from].name(),
                key.1
            );
        }
        found
    };
    for i in 0..n {
        for &key in &before[i] {
            explicit.extend(find(key, i, "before").into_iter().map(|t| (i, t)));
        }
        for &key in &after[i] {
            explicit.extend(find(key, i, "after").into_iter().map(|t| (t, i)));
        }
    }
    explicit.retain(|(a, b)| a != b);
    explicit.sort_unstable();
    explicit.dedup();
    explicit
}

/// The nodes (every system, and an apply node per system with deferred
/// work, after it and before its explicit successors) and the edges
/// between them.
fn nodes_and_edges(
    systems: &[BoxedSystem],
    explicit: &[(usize, usize)],
) -> (Vec<Node>, Vec<(usize, usize)>) {
    let mut nodes: Vec<Node> = (0..systems.len()).map(Node::System).collect();
    let mut apply_node = vec![None; systems.len()];
    for (i, system) in systems.iter().enumerate() {
        if system.has_deferred() {
            apply_node[i] = Some(nodes.len());
            nodes.push(Node::Apply(i));
        }
    }
    let mut edges: Vec<(usize, usize)> = explicit.to_vec();
    for (i, apply) in apply_node.iter().enumerate() {
        if let Some(apply) = *apply {
            edges.push((i, apply));
            for &(a, b) in explicit {
                if a == i {
                    edges.push((apply, b));
                }
            }
        }
    }
    (nodes, edges)
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
    systems: &[BoxedSystem],
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
                !systems[a].access().is_compatible(systems[b].access())
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

/// Panics naming the systems of a cycle, if the explicit edges have one.
#[track_caller]
fn check_cycles(systems: &[BoxedSystem], edges: &[(usize, usize)]) {
    let n = systems.len();
    let mut successors = vec![Vec::new(); n];
    for &(a, b) in edges {
        successors[a].push(b);
    }
    // Iterative DFS with colours: 0 unvisited, 1 on the stack, 2 done.
    let mut colour = vec![0u8; n];
    let mut parent = vec![usize::MAX; n];
    for start in 0..n {
        if colour[start] != 0 {
            continue;
        }
        let mut stack = vec![(start, 0usize)];
        colour[start] = 1;
        while let Some(&mut (v, ref mut next)) = stack.last_mut() {
            if let Some(&w) = successors[v].get(*next) {
                *next += 1;
                match colour[w] {
                    0 => {
                        colour[w] = 1;
                        parent[w] = v;
                        stack.push((w, 0));
                    }
                    1 => {
                        let mut cycle = vec![w];
                        let mut u = v;
                        while u != w {
                            cycle.push(u);
                            u = parent[u];
                        }
                        cycle.push(w);
                        cycle.reverse();
                        let names: Vec<String> = cycle
                            .iter()
                            .map(|&i| format!("`{}`", systems[i].name()))
                            .collect();
                        panic!(
                            "the schedule's ordering has a cycle: {}",
                            names.join(" -> ")
                        );
                    }
                    _ => {}
                }
            } else {
                colour[v] = 2;
                stack.pop();
            }
        }
    }
}
