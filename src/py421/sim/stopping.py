"""How a simulation is stopped by SIGTERM: apart from the simulator, so that a command can catch it
before the simulator's packages (numba) are known to be installed."""


class Terminated(BaseException):
    """A stop asked for by a signal other than Ctrl-C's (SIGTERM): like KeyboardInterrupt, not an
    error, so that what is under way is cleaned up as it is for Ctrl-C."""
