"""Support: what every layer may use and that knows nothing of tilec's IR.

The cache root by the platform's rules (``paths``) and progress on the terminal
(``terminal``). Nothing here imports another tilec package, so the compilers
(``targets``), the runtime, the frontend and the driver share one definition.
"""

from .paths import cache_root, user_cache_dir
from .terminal import OFF, Task, progress, to_console
from .terminal import enabled as progress_enabled

__all__ = ["OFF", "Task", "cache_root", "progress", "progress_enabled", "to_console",
           "user_cache_dir"]
