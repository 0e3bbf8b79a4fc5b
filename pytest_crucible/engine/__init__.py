"""The run engine (layer 5): settings, the models.yaml config, one run's session, item kinds, the item runner,
the scheduler (provider lanes, asking ahead, cost cap) and progress. Imports no pytest."""
