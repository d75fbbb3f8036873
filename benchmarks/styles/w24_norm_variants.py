import math, torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        return (torch.linalg.vector_norm(x, ord=math.inf, dim=(0, 2)), torch.linalg.vector_norm(x, ord=-math.inf, dim=1),
                torch.linalg.vector_norm(x, ord=1, dim=-1, keepdim=True), torch.linalg.vector_norm(x, ord=0, dim=(1, 2)),
                torch.linalg.vector_norm(x, ord=0.5), x.norm(p=2, dim=1), torch.linalg.norm(x[0]), torch.linalg.vector_norm(x, ord=-1, dim=2))
def get_inputs():
    x = torch.randn(3, 4, 5); x[1, 2, 3] = 0.0; x[0, 0] = 0.0
    return [x]
def get_init_inputs(): return []
