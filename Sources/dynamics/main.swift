import DynamicsCLI

Dynamics.runFromCommandLine()
