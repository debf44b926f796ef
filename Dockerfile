# wfpp in a container: `docker compose up` runs it with MongoDB and Redis
# (docker-compose.yml). Without WFPP_MONGO_URI it uses the embedded store in
# $WFPP_DATA_DIR; mount a volume there to keep the data.

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# Pure Go (FerretDB's SQLite is modernc.org/sqlite): a static binary.
RUN CGO_ENABLED=0 go build -trimpath -ldflags='-s -w' -o /out/wfpp ./cmd/wfpp

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/wfpp /usr/local/bin/wfpp
ENV WFPP_ADDR=:8080 \
    WFPP_DATA_DIR=/home/nonroot/data
EXPOSE 8080
USER nonroot:nonroot
ENTRYPOINT ["/usr/local/bin/wfpp"]
CMD ["serve"]
