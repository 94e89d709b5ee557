"""Temporal workflows of FotoPronta (PhotoJobWorkflow, …) and the worker entry point."""
