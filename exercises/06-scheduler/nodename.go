package scheduler
