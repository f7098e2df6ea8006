"""The ``metal`` target family: today its profile (``profile.m1``), which the planner, the
lowering and the SIMT simulator read; the MSL emitter and launcher are still to come."""
