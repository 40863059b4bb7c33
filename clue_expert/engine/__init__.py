"""The engine: the rule language, the compiler onto experta, one seat's knowledge, the completion step, knowledge levels, exact beliefs."""
