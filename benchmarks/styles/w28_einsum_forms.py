import torch, torch.nn as nn
class Model(nn.Module):
    def forward(self, a, b, v, s):
        return (torch.einsum('ii->i', s), torch.einsum('ii', s), torch.einsum('ij,ij->i', a, b), torch.einsum('i,j->ij', v, v),
                torch.einsum('bij,jk->bki', a.unsqueeze(0).expand(2, -1, -1), s), torch.einsum('ij->', a), torch.einsum('bi,i->b', b, v))
def get_inputs(): return [torch.randn(5, 5), torch.randn(5, 5), torch.randn(5), torch.randn(5, 5)]
def get_init_inputs(): return []
