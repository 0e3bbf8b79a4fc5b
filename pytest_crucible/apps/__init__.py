"""Applications on top of everything: the `crucible` command, the GUI, recover. Nothing imports them."""
