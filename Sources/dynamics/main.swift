import DynamicsCLI

Dynamics.main()
