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
    #[track_caller]
    pub(crate) fn build(
        systems: &[BoxedSystem],
        keys: &[SystemKey],
        before: &[Vec<SystemKey>],
        after: &[Vec<SystemKey>],
        chain_edges: &[(usize, usize)],
    ) -> ExecutionGraph {
        let n = systems.len();
        // 1. Explicit edges between systems.
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
        check_cycles(systems, &explicit);

        // 2. Nodes: every system, and an apply node per system with
        //    deferred work.
        let mut nodes: Vec<Node> = (0..n).map(Node::System).collect();
        let mut apply_node = vec![None; n];
        for (i, system) in systems.iter().enumerate() {
            if system.has_deferred() {
                apply_node[i] = Some(nodes.len());
                nodes.push(Node::Apply(i));
            }
        }
        let mut edges: Vec<(usize, usize)> = explicit.clone();
        for (i, apply) in apply_node.iter().enumerate() {
            if let Some(apply) = *apply {
                edges.push((i, apply));
                for &(a, b) in &explicit {
                    if a == i {
                        edges.push((apply, b));
                    }
                }
            }
        }

        // 3. Total order: Kahn's algorithm, systems by the order they were
        //    added, apply nodes as late as possible.
        let node_count = nodes.len();
        let mut successors = vec![Vec::new(); node_count];
        let mut indegree = vec![0usize; node_count];
        for &(a, b) in &edges {
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
        let mut position = vec![0; node_count];
        for (p, &v) in order.iter().enumerate() {
            position[v] = p;
        }

        // 4. Edges by position: explicit ones, plus every conflicting pair
        //    in total order.
        let exclusive: Vec<bool> = order
            .iter()
            .map(|&v| match nodes[v] {
                Node::System(i) => systems[i].is_exclusive(),
                Node::Apply(_) => true,
            })
            .collect();
        let mut dependents = vec![Vec::new(); node_count];
        for &(a, b) in &edges {
            dependents[position[a]].push(position[b]);
        }
        for p in 0..node_count {
            for q in p + 1..node_count {
                let conflict = exclusive[p] || exclusive[q] || {
                    let (Node::System(a), Node::System(b)) = (nodes[order[p]], nodes[order[q]])
                    else {
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
