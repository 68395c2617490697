"""Answer generation: LLM providers, prompts, context and citation validation."""
