"""taskforce: Planning as a Tool for ReAct agents."""
