"""Results (layer 4): the one row schema, the append-only store, the runs in a results folder."""
