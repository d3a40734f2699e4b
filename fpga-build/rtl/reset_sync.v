// Reset synchronizer: asserts asynchronously, releases on the clock after STAGES
// edges, so logic behind it sees a synchronous active-high reset. The first stage
// is the only register a timing tool must not time from arst_n (peach2.sdc).
module reset_sync #(
    parameter STAGES = 3
) (
    input  wire clk,
    input  wire arst_n,
    output wire rst
);
    reg [STAGES-1:0] sync;
    always @(posedge clk or negedge arst_n) begin
        if (!arst_n) sync <= {STAGES{1'b0}};
        else sync <= {sync[STAGES-2:0], 1'b1};
    end
    assign rst = !sync[STAGES-1];
endmodule
