//! Static minimum-hop routes over an undirected graph, with a deterministic tie-break.
//!
//! Issue 10's `graph` topology routes every flow on a shortest path by hop count, "ties broken
//! deterministically". The route is found by breadth-first search (Cormen et al., *Introduction
//! to Algorithms*, §22.2: BFS discovers every node at its minimum hop distance), which fixes a
//! unique path once the order of visiting neighbours is fixed.

use std::collections::VecDeque;

/// Edge indexes of a minimum-hop path from node `from` to node `to`, or `None` when `to` is
/// unreachable.
///
/// `edges[i] = (a, b)` is an undirected edge between nodes `a` and `b` (`< node_count`). The
/// path lists edge indexes in travel order, from `from` to `to`; walking it from `from`, each
/// edge's far end is the next node, so callers can tell the direction each edge is crossed in.
///
/// Tie-break rule (which of several minimum-hop paths is returned): breadth-first search from
/// `from`; a node's neighbours are explored in increasing edge index; a node is reached through
/// the first edge that discovers it, and is never re-parented. So among equally short paths
/// the one breadth-first search discovers first wins: each node's predecessor is the node
/// queued earliest among its neighbours one hop closer to `from` (on a diamond, the branch
/// whose first edge has the lower index). The result depends only on the arguments (edge
/// order included), never on hashing or memory layout. Parallel edges: the lower index is
/// used. Self-loops are never on a shortest path.
///
/// `from == to` gives `Some(vec![])`: the empty path (a flow between two hosts on one node
/// crosses no link).
///
/// # Panics
/// If `from`, `to` or an edge's endpoint is `>= node_count`: the caller built the edge list
/// from its own node table, so an out-of-range node is a bug, like an out-of-range index.
pub fn shortest_path(
    node_count: usize,
    edges: &[(usize, usize)],
    from: usize,
    to: usize,
) -> Option<Vec<usize>> {
    assert!(
        from < node_count && to < node_count,
        "route from node {from} to node {to}, but there are only {node_count} nodes"
    );
    // Neighbours of each node as (edge index, other end), in increasing edge index.
    let mut neighbours: Vec<Vec<(usize, usize)>> = vec![Vec::new(); node_count];
    for (edge, &(a, b)) in edges.iter().enumerate() {
        assert!(
            a < node_count && b < node_count,
            "edge {edge} joins nodes {a} and {b}, but there are only {node_count} nodes"
        );
        neighbours[a].push((edge, b));
        if a != b {
            neighbours[b].push((edge, a));
        }
    }

    // reached_by[n] = the edge through which BFS first reached n (None for `from` and for
    // nodes not reached yet).
    let mut reached_by: Vec<Option<usize>> = vec![None; node_count];
    let mut visited = vec![false; node_count];
    visited[from] = true;
    let mut frontier = VecDeque::from([from]);
    while let Some(node) = frontier.pop_front() {
        if node == to {
            break;
        }
        for &(edge, next) in &neighbours[node] {
            if !visited[next] {
                visited[next] = true;
                reached_by[next] = Some(edge);
                frontier.push_back(next);
            }
        }
    }
    if !visited[to] {
        return None;
    }

    // Walk back from `to` along the discovering edges.
    let mut path = Vec::new();
    let mut node = to;
    while let Some(edge) = reached_by[node] {
        path.push(edge);
        let (a, b) = edges[edge];
        node = if a == node { b } else { a };
    }
    path.reverse();
    Some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Diamond 0–1–3, 0–2–3 (two 2-hop paths). Edges in this order: e0 = 0–1, e1 = 0–2,
    /// e2 = 1–3, e3 = 2–3. By the rule, node 0 explores e0 first, so node 1 is queued before
    /// node 2; node 1 then discovers 3 through e2. Path: [e0, e2] (via node 1).
    #[test]
    fn diamond_takes_the_lower_numbered_branch() {
        let edges = [(0, 1), (0, 2), (1, 3), (2, 3)];
        assert_eq!(shortest_path(4, &edges, 0, 3), Some(vec![0, 2]));
    }

    /// Same diamond with the first two edges swapped: e0 = 0–2, e1 = 0–1. Now node 2 is
    /// queued first and discovers 3 through e3 (2–3). Path: [e0, e3] (via node 2). The edge
    /// order alone decides, as documented.
    #[test]
    fn diamond_tie_follows_edge_order() {
        let edges = [(0, 2), (0, 1), (1, 3), (2, 3)];
        assert_eq!(shortest_path(4, &edges, 0, 3), Some(vec![0, 3]));
    }

    /// Reversed direction over the first diamond: from 3, e2 (3–1) is explored before e3
    /// (3–2), so node 1 is queued first and reaches 0 through e0. Path: [e2, e0].
    #[test]
    fn diamond_reverse_direction() {
        let edges = [(0, 1), (0, 2), (1, 3), (2, 3)];
        assert_eq!(shortest_path(4, &edges, 3, 0), Some(vec![2, 0]));
    }

    /// Fewest hops wins over edge order: the 3-hop path 0–1–2–3 uses the lowest edge
    /// numbers, but the direct edge e3 = 0–3 is one hop.
    #[test]
    fn fewest_hops_beats_lower_edge_numbers() {
        let edges = [(0, 1), (1, 2), (2, 3), (0, 3)];
        assert_eq!(shortest_path(4, &edges, 0, 3), Some(vec![3]));
    }

    /// The dumbbell as a graph: sender 0 – router 1 – router 2 – receiver 3, edges given
    /// out of order. Path from 0 to 3 lists the edges in travel order.
    #[test]
    fn chain_lists_edges_in_travel_order() {
        let edges = [(2, 3), (1, 2), (0, 1)];
        assert_eq!(shortest_path(4, &edges, 0, 3), Some(vec![2, 1, 0]));
        assert_eq!(shortest_path(4, &edges, 3, 0), Some(vec![0, 1, 2]));
    }

    /// Two parallel edges between the same nodes: the lower index carries the route.
    #[test]
    fn parallel_edges_take_the_lower_index() {
        let edges = [(0, 1), (1, 0)];
        assert_eq!(shortest_path(2, &edges, 0, 1), Some(vec![0]));
        assert_eq!(shortest_path(2, &edges, 1, 0), Some(vec![0]));
    }

    #[test]
    fn unreachable_is_none() {
        // Two components: {0, 1} and {2, 3}; a self-loop on 0 connects nothing.
        let edges = [(0, 1), (2, 3), (0, 0)];
        assert_eq!(shortest_path(4, &edges, 0, 3), None);
        assert_eq!(shortest_path(5, &edges, 4, 0), None);
    }

    #[test]
    fn same_node_is_the_empty_path() {
        assert_eq!(shortest_path(3, &[(0, 1)], 2, 2), Some(vec![]));
        assert_eq!(shortest_path(3, &[(0, 1)], 0, 0), Some(vec![]));
    }

    #[test]
    #[should_panic(expected = "only 3 nodes")]
    fn edge_to_a_missing_node_is_a_caller_bug() {
        shortest_path(3, &[(0, 5)], 0, 1);
    }
}
