"""Exception types shared by the core. None of them import pytest."""

from __future__ import annotations


class CrucibleError(Exception):
    """Base class for every error the core raises on purpose."""


class RegistryError(CrucibleError):
    """An extension nobody provides, or an entry point that does not load or lacks what its group needs."""


class InputError(CrucibleError):
    """A user-supplied file is wrong. Carries file, line and field so the message says what to change."""

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 field: str | None = None, case_id: str | None = None):
        self.message = message
        self.file = file
        self.line = line
        self.field = field
        self.case_id = case_id
        super().__init__(str(self))

    def __str__(self) -> str:
        parts = []
        if self.file:  # an error without a file (a setting, an argument) names what is wrong itself
            parts.append(self.file if self.line is None else f"{self.file}:{self.line}")
        if self.case_id:
            parts.append(f"case {self.case_id}")
        if self.field:
            parts.append(f"field '{self.field}'")
        return ": ".join(parts + [self.message])


class ConfigError(InputError):
    """models.yaml is wrong."""


class CaseError(InputError):
    """A case file is wrong."""


class InfraError(CrucibleError):
    """Infrastructure failed (endpoint, sandbox, judge). Never counted as a model failure."""


class EndpointError(InfraError):
    """The endpoint could not be reached or kept failing after retries."""


class ModelMismatchError(InfraError):
    """The server answered as a different model than the one asked for."""


class SandboxError(InfraError):
    """The sandbox itself broke (not the code running inside it)."""


class CostCapReached(CrucibleError):
    """The run's (or a provider's) cost cap leaves no room for another request: the item is skipped."""


PROVIDER_DOWN = "provider down"  # the start of the reason of an item skipped while its provider is down


class ProviderDown(CrucibleError):
    """The provider's circuit is open (client/circuit.py): the item is skipped without asking, its reason
    starting "provider down"."""
