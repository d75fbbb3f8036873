import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, input_size, hidden_size, num_layers, output_size):
        super().__init__()
        self.h0 = torch.randn((num_layers, 10, hidden_size))
        self.c0 = torch.randn((num_layers, 10, hidden_size))
        self.lstm = nn.LSTM(input_size, hidden_size, num_layers, batch_first=True)
        self.fc = nn.Linear(hidden_size, output_size)

    def forward(self, x):
        self.h0 = self.h0.to(x.device)
        self.c0 = self.h0.to(x.device)
        out, _ = self.lstm(x, (self.h0, self.c0))
        return self.fc(out[:, -1, :])


def get_inputs():
    return [torch.randn(10, 64, 128)]


def get_init_inputs():
    return [128, 256, 2, 10]
